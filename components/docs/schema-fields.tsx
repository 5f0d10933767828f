export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  example?: unknown;
}

function resolve(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  if (schema.$ref) return components[schema.$ref.split('/').pop()!] ?? schema;
  return schema;
}

function typeLabel(schema: JsonSchema, components: Record<string, JsonSchema>): string {
  const s = resolve(schema, components);
  if (s.anyOf) return s.anyOf.map((part) => typeLabel(part, components)).join(' | ');
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.type === 'array' && s.items) return `${typeLabel(s.items, components)}[]`;
  return Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'object');
}

/** A nested list of an object schema's fields: name, type, required, description. */
export function SchemaFields({ schema, components }: { schema: JsonSchema; components: Record<string, JsonSchema> }) {
  const s = resolve(schema, components);
  const properties = s.properties ?? (s.items ? resolve(s.items, components).properties : undefined);
  if (!properties) return null;
  const required = new Set(s.required ?? (s.items ? resolve(s.items, components).required : []) ?? []);
  return (
    <ul className="mt-1 space-y-1 border-l border-slate-200 pl-4 text-sm">
      {Object.entries(properties).map(([name, child]) => {
        const resolved = resolve(child, components);
        return (
          <li key={name}>
            <code className="font-mono font-medium">{name}</code>{' '}
            <span className="text-slate-500">
              {typeLabel(child, components)}
              {required.has(name) ? ', required' : ''}
            </span>
            {resolved.description && <span className="text-slate-600"> — {resolved.description}</span>}
            <SchemaFields schema={child} components={components} />
          </li>
        );
      })}
    </ul>
  );
}
