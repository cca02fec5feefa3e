/** A message's text: its string parts joined (tool, action and component parts left out); '' for none. */
export function textOf(message: { content: unknown } | undefined): string {
  if (message === undefined) return '';
  const { content } = message;
  if (typeof content === 'string') return content;
  return (Array.isArray(content) ? content : [content]).filter((p) => typeof p === 'string').join('');
}
