// Browser-tool `fn` arguments are typed from `schema` (spec C2), in useChat's options and defineBrowserTool.
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineBrowserTool, type IChatOptions } from '../src/index.js';
import { useChat } from '../src/index.js';

describe('browser tools', () => {
  it('type fn from schema inside useChat options', () => {
    const run = () =>
      useChat({
        oracleDid: 'did:ixo:entity:o',
        sessionId: 's',
        onPaymentRequiredError: () => undefined,
        browserTools: {
          pageTitle: {
            toolName: 'pageTitle',
            description: 'title',
            schema: z.object({ upper: z.boolean(), times: z.number().optional() }),
            fn: (args) => {
              expectTypeOf(args).toEqualTypeOf<{ upper: boolean; times?: number | undefined }>();
              return args.upper ? 'A' : 'a';
            },
          },
        },
      });
    void run;
  });

  it('type fn from schema with defineBrowserTool, and reject a wrong use', () => {
    const tool = defineBrowserTool({
      toolName: 't',
      description: 'd',
      schema: z.object({ city: z.string() }),
      fn: ({ city }) => city.toUpperCase(),
    });
    expectTypeOf(tool.fn).parameter(0).toEqualTypeOf<{ city: string }>();
    defineBrowserTool({
      toolName: 't',
      description: 'd',
      schema: z.object({ city: z.string() }),
      // @ts-expect-error city is a string: no toFixed
      fn: ({ city }) => city.toFixed(2),
    });
    const options: IChatOptions = {
      oracleDid: 'o',
      sessionId: 's',
      onPaymentRequiredError: () => undefined,
      browserTools: { t: tool },
    };
    void options;
  });
});
