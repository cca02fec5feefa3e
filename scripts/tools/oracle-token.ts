/**
 * Mints capability tokens for the development user against a running oracle, as shell exports:
 *
 *   eval "$(npm run -s oracle:token)"            # then: curl -H "authorization: Bearer $INVOCATION" …
 *   npm run -s oracle:token -- --url http://localhost:3000 --ttl 3600 --json
 *
 * The user's key is generated once and kept in $DATA_DIR/dev-user-key (default ./data). Development only.
 * Reads `.env` as `npm start` does; the URL defaults to ORACLE_URL, PUBLIC_BASE_URL, else localhost:$PORT.
 */
import { parseArgs } from 'node:util';
import { readDotEnv } from '../../server/env-file.js';
import { mintUserTokens } from '../../server/oracle/auth/mint.js';
import { fetchOracleConfig, loadDevUser } from './dev-user.js';

// `.env` as `npm start` reads it: the same PORT, PUBLIC_BASE_URL and DATA_DIR as the server.
readDotEnv();
const env = process.env;
const { values } = parseArgs({
  options: {
    url: {
      type: 'string',
      default: env['ORACLE_URL'] || env['PUBLIC_BASE_URL'] || `http://localhost:${env['PORT'] || '3000'}`,
    },
    ttl: { type: 'string', default: '3600' },
    json: { type: 'boolean', default: false },
  },
});

try {
  const url = values.url;
  const config = await fetchOracleConfig(url);
  const user = await loadDevUser(process.env['DATA_DIR'] ?? './data');
  const tokens = await mintUserTokens(user, config.did as `did:${string}:${string}`, Number(values.ttl));
  if (values.json) {
    console.log(JSON.stringify({ oracleUrl: url, oracleDid: config.did, ...tokens }, null, 2));
  } else {
    console.log(`export ORACLE_URL='${url}'`);
    console.log(`export ORACLE_DID='${config.did}'`);
    console.log(`export USER_DID='${tokens.userDid}'`);
    console.log(`export INVOCATION='${tokens.invocation.serialized}'`);
    console.log(`export DELEGATION='${tokens.delegation.serialized}'`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
