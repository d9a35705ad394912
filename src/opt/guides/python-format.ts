/**
 * Python's `str.format` with named fields only, as LLMJudge fills its prompt template: `{name}`
 * takes the named value, `{{` and `}}` are literal braces. Anything else Python would reject
 * or that needs more than a name (`{0}`, `{}`, `{x!r}`, `{x:>5}`, a lone brace) is reported, so
 * a config's template is refused by `validate` instead of failing every example.
 */

export type FormatPart = { readonly text: string } | { readonly field: string };

/** The template's parts, or the first thing wrong with it (one line). */
export function parseFormat(template: string): { readonly parts: FormatPart[] } | { readonly problem: string } {
  const parts: FormatPart[] = [];
  let text = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === "}") {
      if (template[i + 1] !== "}") return { problem: `a single '}' at character ${i + 1} (write '}}' for a literal brace)` };
      text += "}";
      i++;
      continue;
    }
    if (c !== "{") {
      text += c;
      continue;
    }
    if (template[i + 1] === "{") {
      text += "{";
      i++;
      continue;
    }
    const close = template.indexOf("}", i);
    if (close < 0) return { problem: `a single '{' at character ${i + 1} (write '{{' for a literal brace)` };
    const field = template.slice(i + 1, close);
    if (!/^[A-Za-z_]\w*$/.test(field)) return { problem: `the field {${field}} is not a plain name (use {query}-style names; write '{{' for a literal brace)` };
    if (text !== "") parts.push({ text });
    text = "";
    parts.push({ field });
    i = close;
  }
  if (text !== "") parts.push({ text });
  return { parts };
}

/** The template filled with `values`; throws on a template parseFormat rejects or a field without a value. */
export function pythonFormat(template: string, values: Readonly<Record<string, string>>): string {
  const parsed = parseFormat(template);
  if ("problem" in parsed) throw new Error(`template: ${parsed.problem}`);
  return parsed.parts
    .map((part) => {
      if ("text" in part) return part.text;
      if (!Object.hasOwn(values, part.field)) throw new Error(`template: unknown field {${part.field}}`);
      return values[part.field]!;
    })
    .join("");
}
