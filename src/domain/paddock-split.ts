/**
 * Splitting a paddock's outline in two along a line a person draws across it (the console's map). Planar in
 * longitude/latitude, as the map draws straight edges: exact enough at a paddock's size, and the same
 * straight lines the person sees. Shared by the browser (web/draw.ts) and its tests.
 */

export type Position = [number, number];

/** Why a line does not split an outline, said to the person who drew it. */
export type SplitRefusal =
  | 'The line must cross the paddock’s edge exactly twice: draw it from outside, across, to outside.'
  | 'Only a paddock drawn as one outline without holes can be split.';

export type SplitResult = { parts: [Position[], Position[]] } | { refused: SplitRefusal };

interface Crossing {
  /** Where on the outline: edge index plus the fraction along that edge (orders the crossings around it). */
  ring: number;
  /** Where along the line: segment index plus the fraction along that segment. */
  line: number;
  point: Position;
}

/** The point where segments p1-p2 and q1-q2 cross (with the fractions along each), or null. */
function crossing(p1: Position, p2: Position, q1: Position, q2: Position) {
  const rx = p2[0] - p1[0];
  const ry = p2[1] - p1[1];
  const sx = q2[0] - q1[0];
  const sy = q2[1] - q1[1];
  const denominator = rx * sy - ry * sx;
  if (denominator === 0) return null;
  const qpx = q1[0] - p1[0];
  const qpy = q1[1] - p1[1];
  const t = (qpx * sy - qpy * sx) / denominator;
  const u = (qpx * ry - qpy * rx) / denominator;
  if (t < 0 || t >= 1 || u < 0 || u > 1) return null;
  return { t, u, point: [p1[0] + t * rx, p1[1] + t * ry] as Position };
}

/** The outer ring's positions without the closing repeat. */
function openRing(ring: readonly Position[]): Position[] {
  const first = ring[0];
  const last = ring[ring.length - 1];
  const closed = first && last && first[0] === last[0] && first[1] === last[1];
  return closed ? ring.slice(0, -1) : [...ring];
}

function close(ring: Position[]): Position[] {
  return [...ring, ring[0] as Position];
}

/** The line with its two ends pushed out by 1 % of their segments, so a line ending right on a fence crosses it. */
function withEndsOut(line: readonly Position[]): Position[] {
  if (line.length < 2) return [...line];
  const push = (end: Position, before: Position): Position => [
    end[0] + (end[0] - before[0]) * 0.01,
    end[1] + (end[1] - before[1]) * 0.01,
  ];
  const out = [...line];
  out[0] = push(line[0] as Position, line[1] as Position);
  out[out.length - 1] = push(line[line.length - 1] as Position, line[line.length - 2] as Position);
  return out;
}

/**
 * Splits a Polygon's outer ring by a line (a LineString's positions) that enters and leaves it once. Returns
 * the two new outer rings (closed), or why it cannot.
 */
export function splitOutline(
  rings: readonly (readonly Position[])[],
  drawn: readonly Position[],
): SplitResult {
  const line = withEndsOut(drawn);
  if (rings.length !== 1 || !rings[0]) {
    return { refused: 'Only a paddock drawn as one outline without holes can be split.' };
  }
  const ring = openRing(rings[0]);
  const crossings: Crossing[] = [];
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i] as Position;
    const b = ring[(i + 1) % ring.length] as Position;
    for (let j = 0; j + 1 < line.length; j++) {
      const hit = crossing(a, b, line[j] as Position, line[j + 1] as Position);
      if (hit) crossings.push({ ring: i + hit.t, line: j + hit.u, point: hit.point });
    }
  }
  if (crossings.length !== 2) {
    return {
      refused:
        'The line must cross the paddock’s edge exactly twice: draw it from outside, across, to outside.',
    };
  }
  const [enter, leave] = crossings.sort((x, y) => x.line - y.line) as [Crossing, Crossing];
  // The cut: where the line enters, its own bends inside the paddock, where it leaves.
  const bends = line.slice(Math.floor(enter.line) + 1, Math.floor(leave.line) + 1) as Position[];
  const cut = [enter.point, ...bends, leave.point];
  const [first, second] = [enter, leave].sort((x, y) => x.ring - y.ring) as [Crossing, Crossing];
  const cutFromFirst = first === enter ? cut : [...cut].reverse();
  // The outline's corners between the two crossings, going round one way and then the other.
  const between = (from: number, to: number) => {
    const corners: Position[] = [];
    for (let k = Math.floor(from) + 1; k <= Math.floor(to); k++) corners.push(ring[k] as Position);
    return corners;
  };
  const inner = [...between(first.ring, second.ring)];
  const outer = [...between(second.ring, ring.length - 1), ...between(-1, first.ring)];
  const partA = [first.point, ...inner, ...[...cutFromFirst].reverse().slice(0, -1)];
  const partB = [second.point, ...outer, ...cutFromFirst.slice(0, -1)];
  return { parts: [close(partA), close(partB)] };
}
