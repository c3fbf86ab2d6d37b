export * from './catalog.ts';
export * from './command-params.ts';
export * from './devices.ts';
export * from './house-commands.ts';
export * from './house-state.ts';
export * from './metrics.ts';
export * from './rules.ts';
export * from './webhook-events.ts';
