// Run with `node --allow-natives-syntax`: reads {patterns: [{key, source, flags, inputs}], perChar} as JSON on stdin
// and prints, for each pattern and input, whether matching it through V8's own engine backtracks more than
// `perChar` × the input's length in one exec. V8 counts the backtracks itself: a regexp made by
// %NewRegExpWithBacktrackLimit gives up (no match) past its limit, so a result that differs from the unlimited
// regexp's means the limit was hit. Deterministic: a count, not a clock.
let json = '';
for await (const chunk of process.stdin) json += chunk;
const { patterns, perChar } = JSON.parse(json);
const matches = (re, input) => {
  const out = [];
  if (!re.global && !re.sticky) return JSON.stringify(re.exec(input));
  re.lastIndex = 0;
  for (let m = re.exec(input); m !== null; m = re.exec(input)) {
    out.push(m.index, m[0]);
    if (m[0] === '') re.lastIndex++;
    if (re.sticky && !re.global) break;
  }
  return JSON.stringify(out);
};
const report = [];
for (const { key, source, flags, inputs } of patterns) {
  for (const input of inputs) {
    const limit = Math.max(1000, perChar * input.length);
    const guarded = `(?:${source})|\\uFFFF`;
    const text = `${input}\uFFFF`;
    const limited = %NewRegExpWithBacktrackLimit(guarded, flags, limit);
    const exceeded = matches(limited, text) !== matches(new RegExp(guarded, flags), text);
    if (exceeded) report.push({ key, length: input.length, limit, input: input.slice(0, 80) });
  }
}
process.stdout.write(JSON.stringify(report));
