/**
 * A real OpenID Connect provider on loopback (oauth2-mock-server) standing in for Google in the e2e
 * stack. It signs in whoever the test named last: POST http://localhost:<control port>/identity
 * { sub, email } sets the identity of the next logins.
 */
import { createServer } from 'node:http';
import { Events, OAuth2Server } from 'oauth2-mock-server';

const PORT = Number(process.env.OIDC_PORT ?? 3211);
const CONTROL_PORT = PORT + 1;

let identity = { sub: 'google-e2e-default', email: 'google.default@players.example' };

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
await server.start(PORT, '127.0.0.1');
server.issuer.url = `http://localhost:${PORT}`;

server.service.on(Events.BeforeTokenSigning, (token) => {
  Object.assign(token.payload, { sub: identity.sub, email: identity.email, email_verified: true, name: 'E2E Player' });
});
server.service.on(Events.BeforeUserinfo, (response) => {
  response.body = { sub: identity.sub, email: identity.email, email_verified: true, name: 'E2E Player' };
});

createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    if (request.method === 'POST' && request.url === '/identity') {
      identity = JSON.parse(body) as typeof identity;
      response.writeHead(204).end();
    } else {
      response.writeHead(404).end();
    }
  });
}).listen(CONTROL_PORT, '127.0.0.1');

console.log(`OIDC mock issuer ${server.issuer.url}, control on ${CONTROL_PORT}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void server.stop().then(() => process.exit(0)));
