/** A section of the system prompt, contributed by the runtime or a plugin. */
export interface PromptSection {
  /** A heading (`## <title>`); the section is left out when its body is empty. */
  title: string;
  body: string;
}

/**
 * Compiles the system prompt: who the agent is, then each non-empty section under its heading. The agent's
 * name comes first so that every model (the scripted one reads it too) knows what to call itself.
 */
export function compileSystemPrompt(options: {
  agentName: string;
  now: Date;
  timezone: string | undefined;
  sections: PromptSection[];
}): string {
  const when = options.timezone
    ? `${options.now.toISOString()} (the user's time zone is ${options.timezone})`
    : options.now.toISOString();
  const head = [
    `You are ${options.agentName}, an AI agent (an oracle) that helps its user.`,
    `The current time is ${when}.`,
    'Answer in plain, helpful language. Use the tools you are given when they help; never invent their results.',
  ].join('\n');
  const body = options.sections
    .filter((s) => s.body.trim() !== '')
    .map((s) => `## ${s.title}\n${s.body.trim()}`);
  return [head, ...body].join('\n\n');
}
