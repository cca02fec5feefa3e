/** A tangle of folders that is known and still to be broken: `check:cycles` reports it without failing. */
export interface KnownTangle {
  /** The folder whose entries import each other, as findFolderCycles names it. */
  folder: string;
  /** Its entries as they stand; a tangle of some of them (it shrank) is still this one, one more fails. */
  entries: string[];
  /** Why it is there and what breaks it. */
  why: string;
}

/**
 * The folder cycles left on purpose, to break and then delete here; any other cycle fails `npm run lint`.
 * File cycles have no such list: there are none.
 */
export const KNOWN_TANGLES: KnownTangle[] = [
  {
    folder: 'sdk/src',
    entries: ['chat/', 'config/', 'context/', 'tools/', 'types.ts'],
    why: "types.ts (the public types) imports chat/'s transport types, chat/ reads context/'s registries and tools/' call runner; broken when those types live beside what declares them (issue 39 item 5's split).",
  },
];
