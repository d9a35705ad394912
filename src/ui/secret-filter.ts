/**
 * Nothing the dashboard sends may carry an API key. Logs never record keys, but a config, a task's
 * output or a launched run's console could; so every response body passes through here: values
 * of secret-named keys in JSON are redacted, and the values of the secret-named environment
 * variables (OPENAI_API_KEY, HF_TOKEN, ...) are cut out of every byte sent.
 */
import { isSecretName, REDACTED, sanitize } from "../events/projections/artifact-format.js";

/** Shorter values are not worth hunting (and would redact common words). */
const MIN_SECRET_LENGTH = 6;

export class SecretFilter {
  private readonly secrets: Buffer[];

  constructor(env: NodeJS.ProcessEnv) {
    const values = Object.entries(env)
      .filter(([name, value]) => isSecretName(name) && value !== undefined && value.length >= MIN_SECRET_LENGTH)
      .map(([, value]) => value!);
    // Longest first, so a key that contains another is cut whole.
    this.secrets = [...new Set(values)].sort((a, b) => b.length - a.length).map((v) => Buffer.from(v, "utf8"));
  }

  /** A JSON document to send: secret-named keys redacted, then secret values cut out. */
  json(value: unknown): Buffer {
    return this.bytes(Buffer.from(JSON.stringify(sanitize(value)), "utf8"));
  }

  /** Any bytes to send, with every secret value replaced by the redaction mark. */
  bytes(body: Buffer): Buffer {
    let out = body;
    for (const secret of this.secrets) {
      let at = out.indexOf(secret);
      if (at < 0) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at >= 0) {
        parts.push(out.subarray(from, at), Buffer.from(REDACTED));
        from = at + secret.length;
        at = out.indexOf(secret, from);
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }

  text(body: string): string {
    return this.bytes(Buffer.from(body, "utf8")).toString("utf8");
  }
}
