/**
 * The one table reader of the parsers (issue 31): registrar statements, contract notes and both
 * depositories read their tables with these pure helpers over the line `words` of the document
 * model (which do not depend on how the PDF producer cut its text into operators). Tables are read
 * by content; geometry only decides between readings:
 *
 * - a header is found by its words, the vocabulary passed in as data by each section reader
 *   (headers.ts: `findHeader` with a `HeaderVocabulary`, `matchStackedHeader` with a label map;
 *   grid.ts: `readGrid` with a `GridVocabulary`, columns typed by role; words.ts: `readWordHeader`
 *   with a `WordVocabulary`, every word naming its column's role); it may be stacked over
 *   several lines; its columns are where its words are, never at an assumed x;
 * - a row's figures are read from the right and placed into the numeric columns in order, each
 *   to a distinct column (place.ts: `placeInOrder` at least total distance, under `assignNumbers`,
 *   `alignInOrder` and `rowFigures`; grid.ts's `assignToColumns` by order when the count matches,
 *   else from the right by overlap), so a blank cell is skipped rather than shifting the rest;
 * - text helpers shared by every reader (text.ts): `lineSize`, `squash`, `squashText`,
 *   `wordsText`, `joinWrapped`, `splitGluedNumbers`, `trailingNumbers`, `mergeSplitRows`,
 *   `wordGroups`.
 */
export * from './text.js';
export * from './place.js';
export * from './headers.js';
export * from './grid.js';
export * from './words.js';
