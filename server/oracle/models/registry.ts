import type { ModelInfo } from '../../../contracts/oracle.js';
import type { ChatModel } from './model.js';

/** The models this oracle serves, with their public descriptions, and the default. */
export interface ModelRegistry {
  readonly default: string;
  list(): ModelInfo[];
  get(id: string): ChatModel | undefined;
}

const FREE = {
  inputPerMillion: 0,
  outputPerMillion: 0,
  currency: 'USD',
  unit: 'per_million_tokens',
} as const;

/** Builds the registry: the scripted model always, an OpenAI-compatible one when configured (then the default). */
export function createModelRegistry(models: {
  scripted: ChatModel;
  openai?: ChatModel | undefined;
}): ModelRegistry {
  const byId = new Map<string, { model: ChatModel; info: Omit<ModelInfo, 'isDefault'> }>();
  byId.set(models.scripted.id, {
    model: models.scripted,
    info: {
      id: models.scripted.id,
      label: 'Scripted',
      family: 'scripted',
      tier: 'everyday',
      costLabel: 'Free',
      badge: 'Offline',
      blurb: 'A deterministic model that runs inside the service: no API key, same answer every time.',
      vision: false,
      pricing: FREE,
    },
  });
  if (models.openai) {
    byId.set(models.openai.id, {
      model: models.openai,
      info: {
        id: models.openai.id,
        label: models.openai.id,
        family: 'openai-compatible',
        tier: 'balanced',
        costLabel: 'Provider pricing',
        badge: 'Remote',
        blurb: 'A model behind the configured OpenAI-compatible endpoint.',
        vision: false,
        pricing: FREE,
      },
    });
  }
  const defaultId = models.openai?.id ?? models.scripted.id;
  return {
    default: defaultId,
    list: () => [...byId.values()].map(({ info }) => ({ ...info, isDefault: info.id === defaultId })),
    get: (id) => byId.get(id)?.model,
  };
}
