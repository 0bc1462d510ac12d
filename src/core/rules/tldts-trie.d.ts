declare module 'tldts/dist/es6/src/data/trie.js' {
  export const exceptions: unknown;
  export const rules: unknown;
}
