/**
 * The dataset card (`README.md`) of an export: the Hugging Face Hub's YAML header — configs with data_files,
 * dataset_info features and splits, license, task_categories, size_categories, source_datasets — then prose stating
 * how the data was made (model, thresholds, control, counts per tool). The YAML is written by hand from plain values
 * (every string JSON-quoted, which is valid YAML), so core needs no YAML library; tests parse it with `yaml`.
 * Field names as on the Hub's cards (`configs[].data_files[].path` globs, `dataset_info.features[]` with `dtype`,
 * `list` or `struct`, `size_categories` buckets, `source_datasets` "extended|<id>").
 */

/** A Hub feature type: `dtype: string`, a `list:` of fields, a `struct:` of fields, or a list of one dtype. */
export type Feature = { dtype: string } | { list: Field[] } | { struct: Field[] } | { listOf: string };
export interface Field {
  name: string;
  type: Feature;
}

export interface CardInput {
  prettyName: string;
  /** Hub license id (e.g. "cc0-1.0", "other"). */
  license: string;
  /** Glob of the data files relative to the card, e.g. "data/train-*.parquet". */
  dataFiles: string;
  /**
   * The columns' types, when they are fixed (Parquet). Absent: no `features` (JSON whose nested values differ per
   * row — the tools' JSON Schemas — is typed by what `datasets` infers; a wrong listing would fail its cast).
   */
  features?: Field[];
  examples: number;
  /** A Hub dataset id the corpus came from (`extended|<id>`), absent: "extended". */
  sourceDataset?: string;
  /** Markdown after the header. */
  body: string;
}

const q = (s: string) => JSON.stringify(s);

/** The Hub's size category for a number of examples. */
export function sizeCategory(n: number): string {
  const steps: [number, string][] = [[1e3, 'n<1K'], [1e4, '1K<n<10K'], [1e5, '10K<n<100K'], [1e6, '100K<n<1M'], [1e7, '1M<n<10M'], [1e8, '10M<n<100M'], [1e9, '100M<n<1B']];
  return steps.find(([limit]) => n < limit)?.[1] ?? 'n>1B';
}

function featureLines(fields: readonly Field[], indent: string): string[] {
  const lines: string[] = [];
  for (const f of fields) {
    lines.push(`${indent}- name: ${q(f.name)}`);
    const t = f.type;
    if ('dtype' in t) lines.push(`${indent}  dtype: ${q(t.dtype)}`);
    else if ('listOf' in t) lines.push(`${indent}  list: ${q(t.listOf)}`);
    else if ('list' in t) lines.push(`${indent}  list:`, ...featureLines(t.list, `${indent}  `));
    else lines.push(`${indent}  struct:`, ...featureLines(t.struct, `${indent}  `));
  }
  return lines;
}

export function datasetCard(card: CardInput): string {
  const yaml = [
    '---',
    `pretty_name: ${q(card.prettyName)}`,
    `license: ${q(card.license)}`,
    'task_categories:',
    `- ${q('text-generation')}`,
    'tags:',
    ...['toolformer', 'tool-use', 'function-calling', 'synthetic'].map((t) => `- ${q(t)}`),
    'annotations_creators:',
    `- ${q('machine-generated')}`,
    'size_categories:',
    `- ${q(sizeCategory(card.examples))}`,
    'source_datasets:',
    `- ${q(card.sourceDataset ? `extended|${card.sourceDataset}` : 'extended')}`,
    'configs:',
    `- config_name: ${q('default')}`,
    '  data_files:',
    `  - split: ${q('train')}`,
    `    path: ${q(card.dataFiles)}`,
    'dataset_info:',
    ...(card.features ? ['  features:', ...featureLines(card.features, '  ')] : []),
    '  splits:',
    `  - name: ${q('train')}`,
    `    num_examples: ${card.examples}`,
    '---',
  ];
  return `${yaml.join('\n')}\n\n${card.body.trim()}\n`;
}
