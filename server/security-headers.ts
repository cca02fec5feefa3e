import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** A helmet middleware (or one of its parts): sets and removes headers, then calls `next`. */
type HeaderMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The headers and their values a helmet middleware with fixed options sets, in order. */
export type HeaderSet = readonly (readonly [name: string, value: string])[];

/**
 * The headers `middleware` sets, read once by running it against a recording response. Helmet's options here are
 * fixed (no per-request value such as a nonce), so every response gets the same headers: the server sets this
 * list itself instead of running helmet per request (helmet assembles each policy string on every call, about
 * 2.5 µs a request, a tenth of that for the list).
 */
function recordHeaders(middleware: HeaderMiddleware): HeaderSet {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) =>
      headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value)),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
  };
  let failed: unknown;
  middleware({ headers: {} } as IncomingMessage, recorder as unknown as ServerResponse, (err) => {
    failed = err;
  });
  if (failed !== undefined) throw new Error('helmet refused its options', { cause: failed });
  return [...headers];
}

/**
 * The headers of every answer, of every part (USSD, chain, oracle, /health, /metrics, event streams), set when a
 * request starts (request-context.ts), on the Express app and on the parts' direct paths alike: OWASP's REST
 * headers, for answers that are data, not pages. Nothing may be loaded by them or frame them
 * (`Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`, `X-Frame-Options: DENY`),
 * `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`. Helmet's other defaults (cross-origin
 * opener and resource policies, origin-agent cluster, DNS prefetch, download options, Flash and XSS-filter
 * switches) govern documents a browser renders: the pages get them ({@link pageHeaders}); data
 * answers leave them out, which keeps the hot routes' answers short (the USSD reply is a few dozen bytes, and
 * eleven headers added about 430 bytes and 7 % of its throughput). HSTS is left to the TLS terminator (the
 * nginx recipe), which knows whether the site is served over HTTPS.
 */
export const API_SECURITY_HEADERS: HeaderSet = recordHeaders(
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  }),
);

/**
 * The headers of the server's own HTML pages: helmet's defaults for documents (but HSTS, see above) and this
 * content security policy (`/docs`, Swagger UI; `/ussd/simulator`): their
 * scripts, styles, images and fetches come from this server only, no inline or evaluated script, no plugin,
 * no framing; images may be `data:` URLs (Swagger UI's icons). Replaces the API policy on those routes.
 * `styleHashes`: inline `<style>` elements the page may apply, by the base64 SHA-256 of their text (the USSD
 * simulator's generated menu map).
 */
export function pageHeaders(options: { styleHashes?: string[] } = {}): HeaderSet {
  return recordHeaders(
    helmet({
      strictTransportSecurity: false,
      xFrameOptions: { action: 'deny' },
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", ...(options.styleHashes ?? []).map((h) => `'sha256-${h}'`)],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
    }),
  );
}

/** {@link pageHeaders} without inline styles: Swagger UI's page. */
const PAGE_HEADERS: HeaderSet = pageHeaders();

/** Sets a recorded header set on a response. */
export function setHeaders(res: ServerResponse, headers: HeaderSet): void {
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i] as readonly [string, string];
    res.setHeader(name, value);
  }
}

/** Express middleware for the routes of an HTML page: {@link PAGE_HEADERS}. */
export const pageSecurityHeaders: RequestHandler = (_req, res, next) => {
  setHeaders(res, PAGE_HEADERS);
  next();
};
