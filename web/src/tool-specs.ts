/**
 * The tools the web app is built with: the registry's list. This module is the one seam for a build with other
 * tools — `buildApp({ toolSpecs })` (web/e2e/serve.ts) resolves it to another module exporting `TOOL_SPECS`, as the
 * e2e test of a fifth tool does with pipeline/core/tools/testing/registry.ts. The app never chooses at run time.
 */
export { TOOL_SPECS } from '../../pipeline/core/tools/registry.ts';
