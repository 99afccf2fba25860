/**
 * The part of Citation.js 0.8 this project uses (0.8 ships no type declarations; 0.9, which does,
 * needs Node 22). Shapes from the CSL-JSON schema the library reads and writes.
 */
declare module '@citation-js/core' {
  export interface CSLName {
    family?: string;
    given?: string;
    literal?: string;
    'non-dropping-particle'?: string;
  }

  export interface CSL {
    id: string | number;
    type?: string;
    'citation-key'?: string;
    title?: string;
    author?: CSLName[];
    editor?: CSLName[];
    issued?: { 'date-parts'?: Array<Array<string | number>> };
    'container-title'?: string;
    publisher?: string;
    abstract?: string;
    keyword?: string;
    DOI?: string;
    URL?: string;
  }

  export class Cite {
    constructor(data: unknown, options?: Record<string, unknown>);
    data: CSL[];
  }
}

declare module '@citation-js/plugin-bibtex';
