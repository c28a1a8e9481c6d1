// js-yaml as a bundle of its own (dist/bin/baton-yaml.js): most calls read only plain
// `key: value` headers and never load it, so it is not compiled into every agent command.
module.exports = require('js-yaml');
