import type { YAMLError } from 'yaml';
import type { SourceFile } from './source-files.js';

/** A YAML syntax error as a menu author reads it: the line to look at, and what is likely wrong there. */
export interface SyntaxProblem {
  line: number;
  message: string;
}

/**
 * The first syntax error of a file, in plain words with the likely fix. The parser often reports one
 * slip (a line indented one space too far, a quote left open) as several errors further down; only the
 * first is the author's, so only it is reported, at the line where the slip most likely is.
 */
export function syntaxProblem(file: SourceFile): SyntaxProblem | undefined {
  const error = file.doc.errors[0];
  if (error === undefined) return undefined;
  const line = error.linePos?.[0].line ?? 0;
  const indented = overIndented(file, error, line);
  if (indented !== undefined) return { line: indented, message: `YAML: ${INDENT}` };
  return { line: lineOfSlip(file, error, line), message: `YAML: ${plainWords(error)}` };
}

const INDENT =
  'this line is not indented like the lines beside it: give it the same number of spaces as the other fields of its node (YAML counts spaces)';

/**
 * A field indented too far under `type: menu` reads as more of that value (`menu title: …`), which the
 * parser reports as a colon inside a text on the line above: the slip is the next line's indentation.
 */
function overIndented(file: SourceFile, error: YAMLError, line: number): number | undefined {
  if (error.code !== 'BLOCK_AS_IMPLICIT_KEY' && error.code !== 'MULTILINE_IMPLICIT_KEY') return undefined;
  const lines = file.text.split('\n');
  const indent = (text: string): number => text.length - text.trimStart().length;
  for (let i = line - 1; i >= Math.max(0, line - 2); i--) {
    const here = lines[i] ?? '';
    const next = lines[i + 1] ?? '';
    if (/^\s*[\w-]+:\s*[^\s{[|>'"#]/.test(here) && /^\s*[\w-]+:/.test(next) && indent(next) > indent(here))
      return i + 2;
  }
  return undefined;
}

function plainWords(error: YAMLError): string {
  const first = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
  const code = error.code;
  if (code === 'BAD_INDENT') {
    const close = /end with a ([}\]])/.exec(first)?.[1];
    if (close !== undefined)
      return `a ${close === '}' ? '{' : '['} opened above is not closed: end it with ${close} on the same line`;
    return INDENT;
  }
  if (code === 'TAB_AS_INDENT') return 'a tab in the indentation: indent with spaces only';
  if (code === 'MULTILINE_IMPLICIT_KEY' || (code === 'MISSING_CHAR' && !/quote/.test(first)))
    return 'a colon is missing after the field name: write it as "name: value" (a colon and a space)';
  if (code === 'BLOCK_IN_FLOW' || code === 'BLOCK_AS_IMPLICIT_KEY')
    return `a text with ": " in it: put the text in quotes, like 'Enter: your name'`;
  if (code === 'MISSING_CHAR')
    return `a quote is opened but not closed: close it at the end of the text (write '' for a ' inside a '…' text)`;
  if (code === 'DUPLICATE_KEY') return 'this field is written twice in the same place: keep one';
  return `YAML cannot read this line (${first})`;
}

/**
 * Where the author should look. An unclosed quote is found only where the parser gives up, lines later:
 * the slip is on the last line before that with an odd number of that quote.
 */
function lineOfSlip(file: SourceFile, error: YAMLError, line: number): number {
  if (error.code !== 'MISSING_CHAR' || !/quote/.test(error.message)) return line;
  const quote = /double/i.test(error.message) || error.message.includes('"') ? '"' : "'";
  const lines = file.text.split('\n');
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const count = (lines[i] ?? '').split(quote).length - 1;
    if (count % 2 === 1) return i + 1;
  }
  return line;
}
