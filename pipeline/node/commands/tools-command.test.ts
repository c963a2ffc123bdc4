import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';

/** `toolformer tools`: the registry's tools as OpenAI and MCP function definitions, JSON and nothing else on stdout. */
describe('toolformer tools', { timeout: TEST_CAP_MS }, () => {
  const cwd = mkdtempSync(join(tmpdir(), 'tools-cmd-'));

  it('--format openai: a tools array of four functions with object schemas', async () => {
    const { code, stdout } = await spawnCli(['tools', '--format', 'openai'], cwd).done;
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as { type: string; function: { name: string; description: string; parameters: { type: string } } }[];
    expect(tools.map((t) => t.function.name)).toEqual(['Calculator', 'QA', 'Calendar', 'Translate']);
    for (const t of tools) {
      expect(t.type).toBe('function');
      expect(t.function.description.length).toBeGreaterThan(10);
      expect(t.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
    }
    expect(tools[0].function.parameters).toMatchObject({ properties: { expression: { type: 'string' } }, required: ['expression'] });
  });

  it('--format mcp: tools/list entries with inputSchema; a bad format is a one-line error', async () => {
    const { code, stdout } = await spawnCli(['tools', '--format', 'mcp'], cwd).done;
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as { name: string; inputSchema: { type: string; properties: object } }[];
    expect(tools.map((t) => t.name)).toEqual(['Calculator', 'QA', 'Calendar', 'Translate']);
    for (const t of tools) expect(t.inputSchema.type).toBe('object');
    expect(tools[2].inputSchema.properties).toEqual({}); // Calendar takes no argument
    const bad = await spawnCli(['tools', '--format', 'yaml'], cwd).done;
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--format must be openai or mcp/);
  });
});
