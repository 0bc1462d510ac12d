// `require('flc')`: the compile function, as `require('@adguard/hostlist-compiler')` returns it,
// with the library's other exports as its properties (`require('flc').validateRule`). Node
// 20.19+ loads the ES module itself with require(); this file only shapes what require() returns.
import lib = require('./index.js');

function compile(config: unknown, options?: lib.CompileOptions) {
  return options ? lib.compile(config as lib.Configuration, options) : lib.compile(config);
}

export = Object.assign(compile as typeof lib.compile, lib);
