/**
 * leaflet-geoman is imported by web/draw.ts for what it does to Leaflet (it adds `pm` to the map and to
 * each path); its own declarations are written against @types/leaflet, which is not a dependency, so this
 * project maps the package here (tsconfig `paths`) and web/leaflet.d.ts declares the few `pm` calls made.
 */
export {};
