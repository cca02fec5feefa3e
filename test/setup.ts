import { afterAll } from 'vitest';
import { closeFilePglite } from './helpers/db.js';

// Runs in every test file (vitest `setupFiles`): the file's embedded database closes after its last test.
afterAll(closeFilePglite);
