/**
 * Parses the Prometheus text exposition format strictly enough to catch a malformed answer: every line is a
 * comment (# HELP / # TYPE), blank, or `name{label="value",…} number`. Samples are keyed
 * `name{label="value",…}` with labels sorted, so tests can look them up whatever order they were written in.
 */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    // Values as Go's ParseFloat reads them (Prometheus' parser): numbers, and NaN / ±Inf in any case.
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.]+(?:e[+-]?[0-9]+)?|[+-]?inf|nan)$/i.exec(line);
    if (!m) throw new Error(`line ${i + 1} is not a metric sample: ${line}`);
    const labels = m[2] ? parseLabels(m[2], i + 1) : [];
    const value = /nan/i.test(m[3]) ? NaN : /inf/i.test(m[3]) ? (m[3].startsWith('-') ? -Infinity : Infinity) : Number(m[3]);
    samples.set(sampleKey(m[1], Object.fromEntries(labels)), value);
  }
  return samples;
}

function parseLabels(body: string, lineNo: number): [string, string][] {
  const labels: [string, string][] = [];
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
  let at = 0;
  while (at < body.length) {
    re.lastIndex = at;
    const m = re.exec(body);
    if (!m) throw new Error(`line ${lineNo}: bad labels {${body}}`);
    labels.push([m[1], m[2]]);
    at = re.lastIndex;
  }
  return labels;
}

export function sampleKey(name: string, labels: Record<string, string> = {}): string {
  const parts = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${v}"`);
  return parts.length ? `${name}{${parts.join(',')}}` : name;
}
