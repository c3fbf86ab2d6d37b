/**
 * Paddocks from a file a farmer already has (docs/map.md, "Import"): GeoJSON from a GIS, KML from Google
 * Earth, GPX from a tractor's or a phone's GPS. KML and GPX become GeoJSON through @tmcw/togeojson over
 * @xmldom/xmldom's DOM; every outline then goes through the one geometry check. A dry run answers the
 * preview, with warnings about what looks wrong (import-warnings.ts); otherwise every outline is created in
 * one transaction, or none.
 */
import type { Document as XmlDocument } from '@xmldom/xmldom';
import type { Feature, Geometry, Position } from 'geojson';
import { oneLineName } from '../../calls/input-rules.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { invalid } from '../../domain/errors.ts';
import { distanceM } from '../../lib/geo.ts';
import { isPlainObject, parseJson } from '../../lib/json.ts';
import type { Scope } from '../farms/access.ts';
import { requireFarm } from '../farms/access.ts';
import { acresOf, checkedPaddockGeometry, type PaddockGeometry, readPaddockGeometry } from './geometry.ts';
import { type ImportContext, importWarnings } from './import-warnings.ts';
import { farmPaddockRows } from './repository.ts';
import type { Paddock, PaddockImportInput, PaddockPreview } from './schemas.ts';
import { createPaddock, type OutlinesChangedHook } from './service.ts';

export const IMPORT_FORMATS = ['geojson', 'kml', 'gpx'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The most paddocks one import creates (a farm's; a county's parcels are not an import). */
export const MAX_IMPORTED_PADDOCKS = 500;

/**
 * A walked or driven boundary (a GPS track) ends near where it began, rarely on it: ends this close (in
 * metres, about a tractor's length and a consumer GPS's error) close the ring.
 */
export const CLOSE_TRACK_WITHIN_M = 25;

const NAME_MAX = 200;

/**
 * How deep GeometryCollections may nest. RFC 7946 §3.1.8 advises against nesting them at all; a file that
 * nests them deeper than this is not a drawing of fields, and walking it without a bound overflows the stack.
 */
export const MAX_COLLECTION_NESTING = 8;

/** The format from the content: JSON starts with { or [, KML and GPX by their root element. */
function sniff(content: string): ImportFormat {
  const head = content.trimStart().slice(0, 2048);
  if (head.startsWith('{') || head.startsWith('[')) return 'geojson';
  if (/<kml[\s>]/i.test(head)) return 'kml';
  if (/<gpx[\s>]/i.test(head)) return 'gpx';
  throw invalid(
    'format',
    'Could not tell the file format from its content: give format (geojson, kml or gpx).',
  );
}

/** KML and GPX read with togeojson over xmldom's parser, both loaded with the first such file. */
async function parseXml(content: string, format: ImportFormat): Promise<XmlDocument> {
  const { DOMParser } = await import('@xmldom/xmldom');
  const problems: string[] = [];
  let doc: XmlDocument | null = null;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') problems.push(message);
      },
    }).parseFromString(content, 'text/xml');
  } catch (err) {
    // A fatal error (not well-formed) is thrown after onError heard it.
    if (problems.length === 0) problems.push((err as Error).message);
  }
  const root = doc?.documentElement?.nodeName.toLowerCase().replace(/^.*:/, '');
  if (!doc || problems.length > 0 || root !== format) {
    const why = problems[0] ?? `its root element is <${root ?? 'none'}>, not <${format}>`;
    throw invalid('content', `content is not a ${format.toUpperCase()} file: ${why.split('\n')[0]}`);
  }
  return doc;
}

/** The file's features, as GeoJSON. */
async function featuresOf(content: string, format: ImportFormat): Promise<Feature<Geometry | null>[]> {
  if (format === 'kml' || format === 'gpx') {
    const doc = await parseXml(content, format);
    const { gpx, kml } = await import('@tmcw/togeojson');
    return (format === 'kml' ? kml(doc) : gpx(doc)).features;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (err) {
    throw invalid('content', `content is not JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw invalid('content', 'content must be a GeoJSON object');
  if (parsed.type === 'FeatureCollection') {
    if (!Array.isArray(parsed.features)) {
      throw invalid('content', 'content is a FeatureCollection without a features array');
    }
    return parsed.features as Feature<Geometry | null>[];
  }
  if (parsed.type === 'Feature') return [parsed as unknown as Feature<Geometry | null>];
  return [{ type: 'Feature', properties: {}, geometry: parsed as unknown as Geometry }];
}

const samePosition = (a: Position | undefined, b: Position | undefined) =>
  a !== undefined && b !== undefined && a[0] === b[0] && a[1] === b[1];

/** A line that comes back to where it began (or within CLOSE_TRACK_WITHIN_M) as a ring; else null. */
function ringOf(line: Position[]): Position[] | null {
  const first = line[0];
  const last = line[line.length - 1];
  if (!first || !last || line.length < 3) return null;
  if (samePosition(first, last)) return line;
  return distanceM(first, last) <= CLOSE_TRACK_WITHIN_M ? [...line, first] : null;
}

type Outline = { geometry: unknown } | { skip: string };

/**
 * What a feature's geometry becomes: a Polygon or MultiPolygon as it is (checked later), a closed line as a
 * polygon (a GPX track or a KML LineString drawn round a field; a track's segments joined in order), the
 * areas of a collection together; a point or an open line is not an area and is left out.
 */
function outlineOf(geometry: Geometry | null | undefined, depth = 0): Outline {
  if (!isPlainObject(geometry)) return { skip: 'it has no geometry' };
  switch (geometry.type) {
    case 'Polygon':
    case 'MultiPolygon':
      return { geometry };
    case 'LineString':
    case 'MultiLineString': {
      const line = geometry.type === 'LineString' ? geometry.coordinates : geometry.coordinates.flat();
      const ring = Array.isArray(line) ? ringOf(line) : null;
      if (!ring) {
        return {
          skip: `it is an open line (its ends are more than ${CLOSE_TRACK_WITHIN_M} m apart), not an area`,
        };
      }
      return { geometry: { type: 'Polygon', coordinates: [ring] } };
    }
    case 'GeometryCollection': {
      if (depth >= MAX_COLLECTION_NESTING) {
        throw invalid(
          'content',
          `content nests GeometryCollections more than ${MAX_COLLECTION_NESTING} deep: give each area as a Polygon or MultiPolygon feature.`,
        );
      }
      if (!Array.isArray(geometry.geometries))
        return { skip: 'it is a GeometryCollection without geometries' };
      const parts = geometry.geometries.map((g) => outlineOf(g, depth + 1)).filter((o) => 'geometry' in o);
      const polygons = parts.flatMap((o) => {
        const g = (o as { geometry: Geometry }).geometry;
        return g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
      });
      if (polygons.length === 0) return { skip: 'its geometries hold no area' };
      return {
        geometry:
          polygons.length === 1
            ? { type: 'Polygon', coordinates: polygons[0] }
            : { type: 'MultiPolygon', coordinates: polygons },
      };
    }
    default:
      return { skip: `it is a ${String(geometry.type)}, not an area` };
  }
}

function nameOf(feature: Feature<Geometry | null>, index: number): string {
  const props = isPlainObject(feature.properties) ? feature.properties : {};
  const given = [props.name, props.Name, props.NAME, props.title].find(
    (v): v is string => typeof v === 'string' && v.trim() !== '',
  );
  return (oneLineName(given?.trim() ?? '') || `Paddock ${index + 1}`).slice(0, NAME_MAX);
}

/**
 * The preview: every feature of the file, in its order, with what would happen to it. `action` is
 * `create`, `skip` (not an area: left out, the import goes on) or `refuse` (an area whose outline fails the
 * check: the import is refused until it is fixed).
 */
export async function previewImport(
  input: PaddockImportInput,
  context: ImportContext | null,
): Promise<PaddockPreview[]> {
  const format = input.format ?? sniff(input.content);
  const features = await featuresOf(input.content, format);
  const preview = features.map((feature, index): PaddockPreview => {
    const name = nameOf(
      isPlainObject(feature) ? feature : { type: 'Feature', properties: {}, geometry: null },
      index,
    );
    const outline = outlineOf(isPlainObject(feature) ? feature.geometry : null);
    if ('skip' in outline) {
      return {
        index,
        name,
        acres: null,
        geometry: null,
        action: 'skip',
        problem: `Left out: ${outline.skip}.`,
        warnings: [],
      };
    }
    const checked = checkedPaddockGeometry(outline.geometry);
    if ('problem' in checked) {
      return {
        index,
        name,
        acres: null,
        geometry: null,
        action: 'refuse',
        problem: checked.problem.message,
        warnings: [],
      };
    }
    const { geometry } = checked;
    return {
      index,
      name,
      acres: acresOf(geometry),
      geometry: geometry as unknown as Record<string, unknown>,
      action: 'create',
      problem: null,
      warnings: [],
    };
  });
  if (!context) return preview;
  const creates = preview.filter((p) => p.action === 'create');
  const warnings = importWarnings(
    creates.map((p) => ({ name: p.name, geometry: p.geometry as unknown as PaddockGeometry })),
    context,
  );
  creates.forEach((p, i) => {
    p.warnings = warnings[i] ?? [];
  });
  return preview;
}

/** The farm as the warnings see it: its location and its paddocks' outlines. */
async function importContext(db: Db, farm: { id: string; lat: number | null; lon: number | null }) {
  const rows = await farmPaddockRows(db, farm.id);
  const existing = rows.flatMap((row) => {
    const { geometry } = readPaddockGeometry(parseJson<unknown>(row.geometry, null));
    return geometry ? [{ name: row.name, geometry }] : [];
  });
  const location = farm.lat !== null && farm.lon !== null ? ([farm.lon, farm.lat] as const) : null;
  return { location, existing } satisfies ImportContext;
}

/**
 * Creates a paddock for each area of the file, in one transaction: none when any area is refused (400
 * naming the feature and its problem), or when the file has no area at all.
 */
export async function importPaddocks(
  db: Db,
  scope: Scope,
  farmId: string,
  input: PaddockImportInput,
  outlinesChanged: OutlinesChangedHook,
  now: number = Date.now(),
): Promise<{ dry_run: true; data: PaddockPreview[] } | { dry_run: false; data: Paddock[] }> {
  const farm = await requireFarm(db, scope, farmId);
  // The warnings are for the person looking at the dry run; an import that goes ahead needs none.
  const context = input.dry_run ? await importContext(db, farm) : null;
  const preview = await previewImport(input, context);
  if (input.dry_run) return { dry_run: true, data: preview };
  const refused = preview.find((p) => p.action === 'refuse');
  if (refused) {
    throw invalid(
      'content',
      `Feature ${refused.index + 1} ("${refused.name}") cannot be a paddock: ${refused.problem} Nothing was imported.`,
    );
  }
  const creates = preview.filter((p) => p.action === 'create');
  if (creates.length === 0) {
    throw invalid(
      'content',
      'The file holds no paddock outline (a polygon, or a closed line): nothing to import.',
    );
  }
  if (creates.length > MAX_IMPORTED_PADDOCKS) {
    throw invalid(
      'content',
      `The file holds ${creates.length} outlines; one import creates at most ${MAX_IMPORTED_PADDOCKS}.`,
    );
  }
  const data = await inTransaction(db, async (trx) => {
    const made: Paddock[] = [];
    // One millisecond apart, so the list (newest first) shows them in the file's order reversed, not shuffled.
    for (const [i, p] of creates.entries()) {
      const fields = { name: p.name, geometry: p.geometry };
      made.push(await createPaddock(trx, scope, farm.id, fields, outlinesChanged, now + i));
    }
    return made;
  });
  return { dry_run: false, data };
}
