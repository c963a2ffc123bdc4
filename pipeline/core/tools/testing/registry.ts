/**
 * A registry for tests: the production tools (../registry.ts) and one more, the toy UnitConvert. The Node test
 * (pipeline/node/tools/fifth-tool.test.ts) hands it to the pipeline; the web e2e test (web/e2e/fifth-tool.test.ts) builds the app with
 * it in place of web/src/tool-specs.ts.
 */
import { TOOL_SPECS as PRODUCTION_SPECS } from '../registry.ts';
import type { ToolSpec } from '../spec.ts';
import { unitConvert } from './unit-convert/index.ts';

export const TOOL_SPECS: readonly ToolSpec[] = [...PRODUCTION_SPECS, unitConvert];
