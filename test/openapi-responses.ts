/**
 * Checks an API response against the OpenAPI document: the status is one the operation declares, and a
 * JSON body matches the schema declared for that status (JSON Schema 2020-12, as OpenAPI 3.1 says, with
 * ajv). Used by `callRoute` (test/fixtures.ts) on every response the route tests receive, and by the e2e
 * journeys' merchant API client (e2e/api.ts) against the committed sdk/openapi.json.
 *
 * Formats (`date-time`, …) are not checked; of the headers, those the document marks required must be present.
 */
import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';

interface DeclaredHeader {
  $ref?: string;
  required?: boolean;
}

interface OpenApiDocument {
  paths?: Record<
    string,
    | Record<
        string,
        { responses?: Record<string, { content?: Record<string, unknown>; headers?: Record<string, DeclaredHeader> }> } | undefined
      >
    | undefined
  >;
  components?: { headers?: Record<string, DeclaredHeader> };
}

export interface ApiResponseSample {
  method: string;
  /** The concrete path (`/api/charges/ch_1`) or the document's template (`/api/charges/{chargeId}`). */
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
  /** When given, the headers the document marks required (x-request-id, Retry-After on 429) must be there. */
  headers?: Headers;
}

const DOCUMENT_ID = 'chargeport-openapi';
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** `source`: the document as built (lib/api/openapi.ts) or as committed (sdk/openapi.json). */
export function openApiResponseValidator(source: object) {
  const document = source as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false, allErrors: true });
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const compiled = new Map<string, ValidateFunction>();
  const templates = Object.keys(document.paths ?? {}).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));

  /** The document's template for a concrete path: `/api/charges/ch_1` → `/api/charges/{chargeId}`. */
  function templateOf(path: string): string | undefined {
    const pathname = path.split('?')[0]!;
    if (document.paths?.[pathname]) return pathname;
    return templates.find(({ pattern }) => pattern.test(pathname))?.template;
  }

  /** Problems with the response, in words; empty when it is what the document says. */
  function problems(sample: ApiResponseSample): string[] {
    const method = sample.method.toLowerCase();
    const template = templateOf(sample.path);
    const label = `${sample.method.toUpperCase()} ${template ?? sample.path}`;
    const operation = template ? document.paths?.[template]?.[method] : undefined;
    if (!operation) return [`${label} is not in the OpenAPI document (lib/api/openapi/register-*-paths.ts)`];
    const responses = operation.responses ?? {};
    const declared = responses[String(sample.status)] ?? responses.default;
    const code = (sample.body as { error?: { code?: string } } | null)?.error?.code;
    if (!declared) {
      return [
        `${label} answered ${sample.status}${code ? ` (${code})` : ''}, which the OpenAPI document does not declare ` +
          `(it declares ${Object.keys(responses).join(', ')}): declare it in lib/api/openapi/register-*-paths.ts, or fix the route`,
      ];
    }
    const missingHeaders = sample.headers
      ? Object.entries(declared.headers ?? {})
          .filter(([, header]) => (header.$ref ? document.components?.headers?.[header.$ref.split('/').pop()!] : header)?.required)
          .map(([name]) => name)
          .filter((name) => !sample.headers!.has(name))
      : [];
    if (missingHeaders.length) return [`${label} ${sample.status} lacks the header(s) the document requires: ${missingHeaders.join(', ')}`];
    const mediaType = sample.contentType?.split(';')[0]!.trim().toLowerCase() ?? null;
    const content = declared.content ?? {};
    if (!Object.keys(content).length) return [];
    if (!mediaType || !(mediaType in content)) {
      return [
        `${label} ${sample.status} answered ${mediaType ?? 'no content type'}; the document declares ${Object.keys(content).join(', ')}`,
      ];
    }
    if (mediaType !== 'application/json') return [];
    const status = responses[String(sample.status)] ? String(sample.status) : 'default';
    const ref = `${DOCUMENT_ID}#/paths/${pointer(template!)}/${method}/responses/${status}/content/${pointer(mediaType)}/schema`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    if (validate(sample.body)) return [];
    return [
      `${label} ${sample.status}: the body does not match the document's schema:\n` +
        (validate.errors ?? [])
          .slice(0, 8)
          .map(
            (error) =>
              `  body${error.instancePath.replace(/\//g, '.')} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`,
          )
          .join('\n') +
        `\nbody: ${JSON.stringify(sample.body).slice(0, 800)}`,
    ];
  }

  /** The `{ data: null, error }` envelope, for answers no operation describes (405 on a method a route lacks, 404 off the routes). */
  function errorEnvelopeProblems(body: unknown): string[] {
    const ref = `${DOCUMENT_ID}#/components/schemas/ErrorResponse`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate(body) ? [] : [`not the error envelope (ErrorResponse): ${ajv.errorsText(validate.errors)}`];
  }

  return {
    templateOf,
    problems,
    errorEnvelopeProblems,
    /** Throws what is wrong, so the test that received the response fails with it. */
    check(sample: ApiResponseSample): void {
      const found = problems(sample);
      if (found.length) throw new Error(`OpenAPI response validation: ${found.join('\n')}`);
    },
  };
}
