/**
 * The shape of a compiled menu tree (generated/menus.ts): what the menu generator (scripts/menus/) writes
 * and the USSD engine (server/ussd/engine/) interprets. Declarations only; generic over strings, so any
 * compiled tree (the real one, a test fixture's) has this type. generated/menus.ts re-exports these types
 * next to the unions of names (NodeId, ActionName, …) it derives from the YAML.
 */

/** A text in every language, by language code. */
export type Translated = Readonly<Record<string, string>>;

/** Who sees an option: every user, or only users who are (not) logged in. */
export type Audience = 'anonymous' | 'authenticated';

/** An action named in the menus, and every node it may lead to. */
export interface CompiledAction {
  readonly name: string;
  readonly targets: readonly string[];
}

/** Where `0` leads: the previous screen (true), nowhere (false), or a fixed node. */
export type BackRule = boolean | string;

export interface CompiledOption {
  readonly key: string;
  readonly label: Translated;
  readonly when?: Audience;
  readonly next?: string;
  readonly action?: CompiledAction;
  /** Given to the action as its input. */
  readonly value?: string;
}

export interface CompiledMenu {
  readonly kind: 'menu';
  readonly title: Translated;
  readonly options: readonly CompiledOption[];
  readonly back: BackRule;
  /** Option keys on each page, planned at generate time per language and audience. */
  readonly pages: Readonly<Record<string, Readonly<Record<Audience, readonly (readonly string[])[]>>>>;
}

export interface CompiledInfo {
  readonly kind: 'info';
  /** The text split into pages at word boundaries, per language; placeholders are still in. */
  readonly pages: Readonly<Record<string, readonly string[]>>;
  readonly back: BackRule;
}

export interface CompiledInput {
  readonly kind: 'input';
  readonly prompt: Translated;
  readonly validate?: string;
  /** The longest answer `validate: text` accepts, in characters. */
  readonly maxLength?: number;
  /** A regular expression (`u` flag) the whole answer of `validate: text` must match. */
  readonly pattern?: string;
  /** The notice shown for an answer that does not match `pattern`. */
  readonly patternNotice?: string;
  /** Shows `00. Skip`; skipping gives the action no value. */
  readonly optional: boolean;
  /** Kept only as a salted hash, to compare a confirmation with. */
  readonly secret: boolean;
  readonly save?: string;
  readonly next?: string;
  readonly action?: CompiledAction;
  readonly back: BackRule;
}

export interface CompiledActionNode {
  readonly kind: 'action';
  readonly action: CompiledAction;
}

export interface CompiledEnd {
  readonly kind: 'end';
  readonly text: Translated;
}

export type CompiledNode = CompiledMenu | CompiledInfo | CompiledInput | CompiledActionNode | CompiledEnd;

/** Texts the engine itself shows. */
export interface SystemTexts {
  readonly goodbye: Translated;
  readonly invalidChoice: Translated;
  readonly back: Translated;
  readonly more: Translated;
  readonly exit: Translated;
  readonly skip: Translated;
}

/** A whole compiled menu tree. */
export interface MenuTree {
  readonly start: string;
  readonly defaultLanguage: string;
  /** Language code → the language's own name. */
  readonly languages: Readonly<Record<string, string>>;
  /** Placeholder or saved answer → its longest value; longer values are cut to it. */
  readonly placeholders: Readonly<Record<string, number>>;
  /** Validator → the notice shown for each way the value can fail. */
  readonly validators: Readonly<Record<string, readonly string[]>>;
  readonly system: SystemTexts;
  readonly notices: Readonly<Record<string, Translated>>;
  readonly nodes: Readonly<Record<string, CompiledNode>>;
}
