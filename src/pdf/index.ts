export * from './model.js';
export * from './open.js';
export * from './numbers.js';
export { buildLines, type RawItem } from './lines.js';
