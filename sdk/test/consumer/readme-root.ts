// Stands in for `react-dom/client` in the README's app (readme-app.test.tsx): the real `createRoot`, with
// every root it made kept, so that the test unmounts the app the README renders at its top level.
import { createRoot as reactCreateRoot, type Root } from 'react-dom/client';

export const roots: Root[] = [];

export function createRoot(...args: Parameters<typeof reactCreateRoot>): Root {
  const root = reactCreateRoot(...args);
  roots.push(root);
  return root;
}
