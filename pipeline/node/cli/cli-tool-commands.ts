/**
 * The tools' commands: mcp (serve them), retrieve (rank them for a text) and tools (their definitions as JSON).
 */
import type { Command } from 'commander';
import { DEFAULT_RETRIEVER } from '../../core/retrieval/retriever.ts';
import { DEFAULT_MODEL } from '../system/package-paths.ts';
import { rememberToolsOutput } from './start-cache.mjs';
import {
  catalogOption, collect, deviceOption, integer, listenHostOption, mcpOption, onnxModelOption, onUse, port, retrieverOption, toolsOption,
} from './cli-options.ts';

export function addToolCommands(program: Command): void {
  defineMcp(program);
  defineRetrieve(program);
  defineTools(program);
}

function defineMcp(program: Command): void {
  program
    .command('mcp')
    .description('serve the tools to MCP clients: stdio by default, Streamable HTTP with --http <port>')
    .option('--http <port>', 'serve Streamable HTTP at http://<host>:<port>/mcp instead of stdio (0: any free port)', port('--http'))
    .addOption(listenHostOption(' with --http'))
    .option('--token <token>', 'with --http: require "Authorization: Bearer <token>" (or set TOOLFORMER_MCP_TOKEN)')
    .option('--allow-origin <origin>', 'with --http: a browser Origin to accept besides localhost (repeatable)', collect, [])
    .addOption(toolsOption(' to serve (default: all; with --catalog: none of the built-in ones)'))
    .addOption(catalogOption("serve a tool catalog's tools"))
    .action(onUse(async () => (await import('../mcp/mcp-command.ts')).mcpCommand));
}

function defineRetrieve(program: Command): void {
  program
    .command('retrieve')
    .description("rank the run's tools for a text (the tool retriever of annotate --tool-retrieval)")
    .argument('<text>', 'a request, a sentence, a document')
    .addOption(onnxModelOption(': the LM whose hidden states the dense retriever reads', DEFAULT_MODEL))
    .addOption(deviceOption())
    .addOption(toolsOption(' of the built-in ones to rank (default: all of them)'))
    .addOption(catalogOption("add a tool catalog's tools"))
    .addOption(mcpOption())
    .option('--top <n>', 'tools to show', integer('--top'), 5)
    .addOption(retrieverOption().default(DEFAULT_RETRIEVER))
    .option('--json', 'one JSON object: {text, retriever, scale, model, tools, ranking: [{name, score}], builtIn?: [{name, rank, score}]}')
    .action(onUse(async () => (await import('../commands/retrieve-command.ts')).retrieveCommand));
}

function defineTools(program: Command): void {
  program
    .command('tools')
    .description('the registered tools as function-calling definitions (JSON on stdout)')
    .option('--format <openai|mcp>', 'OpenAI tools array or MCP tools/list entries', 'openai')
    .action(async (opts: { format: string }) => {
      if (opts.format !== 'openai' && opts.format !== 'mcp') throw new Error(`--format must be openai or mcp (got ${JSON.stringify(opts.format)})`);
      const [{ TOOL_SPECS }, { mcpTools, openAiTools }] = await Promise.all([
        import('../../core/tools/registry.ts'),
        import('../../core/tools/definitions.ts'),
      ]);
      const tools = opts.format === 'mcp' ? mcpTools(TOOL_SPECS) : openAiTools(TOOL_SPECS);
      const output = `${JSON.stringify(tools, null, 2)}\n`;
      process.stdout.write(output);
      // bin.mjs prints it from here next time, without the TypeScript loader, while these sources stay as they are.
      rememberToolsOutput(opts.format, output);
    });
}
