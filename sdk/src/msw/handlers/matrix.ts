import { http, HttpResponse, type HttpHandler } from 'msw';

/** A Matrix home server's `whoami` and `openid/request_token` at an origin (for `useGetOpenIdToken`). */
export function matrixHandlers(homeServer: string): HttpHandler[] {
  const hs = homeServer.replace(/\/+$/, '');
  return [
    http.get(`${hs}/_matrix/client/v3/account/whoami`, ({ request }) =>
      request.headers.get('authorization')?.startsWith('Bearer ')
        ? HttpResponse.json({ user_id: '@mock-user:matrix.test' })
        : HttpResponse.json({ errcode: 'M_MISSING_TOKEN', error: 'Missing access token' }, { status: 401 }),
    ),
    http.post(`${hs}/_matrix/client/v3/user/:userId/openid/request_token`, () =>
      HttpResponse.json({
        access_token: 'mock-openid-token',
        token_type: 'Bearer',
        matrix_server_name: 'matrix.test',
        expires_in: 3600,
      }),
    ),
  ];
}
