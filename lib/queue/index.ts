// The Maildir queue's public face: the only module of lib/queue that other folders import
// (a layering test holds them to it). Its modules: names (sortable names and ids),
// mailbox (the folders of one mailbox), envelope (the front-matter format), item (an
// item read from a folder), deliver (copies into new/), claim and finish (new/ →
// in_process/ → completed/), quarantine (unusable entries to bad/), inspect (a mailbox's
// problems), tempFiles (stale temp files), foreignImport (mail in another tool's layout),
// plainHeader (the reference scripts' plain `key: value` headers).
export * from './claim.js';
export * from './deliver.js';
export * from './envelope.js';
export * from './finish.js';
export * from './foreignImport.js';
export * from './inspect.js';
export * from './item.js';
export * from './mailbox.js';
export * from './names.js';
export * from './plainHeader.js';
export * from './quarantine.js';
export * from './tempFiles.js';
