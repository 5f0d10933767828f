import type { Metadata } from 'next';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { ERROR_CODES, ERROR_STATUS } from '@/lib/errors';
import { env } from '@/lib/env';
import { SchemaFields, type JsonSchema } from '@/components/docs/schema-fields';

export const metadata: Metadata = { title: 'API reference' };
// The document names this deployment's URL (APP_URL), known only at run time.
export const dynamic = 'force-dynamic';

type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema; description?: string }[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { description: string; content?: { 'application/json': { schema: JsonSchema } } }>;
};

export default function ApiReferencePage() {
  const doc = buildOpenApiDocument(env().APP_URL) as unknown as {
    info: { title: string; description: string };
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, JsonSchema> };
  };
  const components = doc.components.schemas;
  return (
    <main className="mx-auto max-w-4xl px-6 py-12">
      <h1 className="text-3xl font-semibold">{doc.info.title}</h1>
      <p className="mt-3 text-slate-600">{doc.info.description}</p>
      <p className="mt-3 text-sm text-slate-500">
        Authenticate with the <code className="font-mono">x-api-key</code> header. Machine-readable:{' '}
        <a className="text-brand-600 underline" href="/api/openapi.json">
          /api/openapi.json
        </a>
        .
      </p>
      {Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => (
          <section key={op.operationId} id={op.operationId} className="mt-10 rounded-xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
            <h2 className="font-mono text-lg">
              <span className="mr-2 rounded bg-slate-900 px-2 py-0.5 text-sm uppercase text-white">{method}</span>
              {path}
            </h2>
            <p className="mt-2 font-medium">{op.summary}</p>
            {op.description && <p className="mt-1 text-sm text-slate-600">{op.description}</p>}
            {op.parameters && op.parameters.length > 0 && (
              <>
                <h3 className="mt-4 text-sm font-semibold uppercase text-slate-500">Parameters</h3>
                <ul className="mt-1 text-sm">
                  {op.parameters.map((p) => (
                    <li key={`${p.in}-${p.name}`}>
                      <code className="font-mono">{p.name}</code>{' '}
                      <span className="text-slate-500">
                        ({p.in}
                        {p.required ? ', required' : ''})
                      </span>{' '}
                      {p.description ?? p.schema?.description}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {op.requestBody && (
              <>
                <h3 className="mt-4 text-sm font-semibold uppercase text-slate-500">Body</h3>
                <SchemaFields schema={op.requestBody.content['application/json'].schema} components={components} />
              </>
            )}
            <h3 className="mt-4 text-sm font-semibold uppercase text-slate-500">Responses</h3>
            <ul className="mt-1 text-sm">
              {Object.entries(op.responses).map(([status, response]) => (
                <li key={status}>
                  <span className="font-mono">{status}</span> — {response.description}
                </li>
              ))}
            </ul>
          </section>
        )),
      )}
      <section id="errors" className="mt-10">
        <h2 className="text-xl font-semibold">Error codes</h2>
        <table className="mt-3 w-full text-left text-sm">
          <thead>
            <tr className="text-slate-500">
              <th className="py-1">code</th>
              <th className="py-1">HTTP status</th>
            </tr>
          </thead>
          <tbody>
            {ERROR_CODES.map((code) => (
              <tr key={code} className="border-t border-slate-200">
                <td className="py-1 font-mono">{code}</td>
                <td className="py-1">{ERROR_STATUS[code]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </main>
  );
}
