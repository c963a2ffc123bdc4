import { describe, expect, it, vi } from 'vitest';
import { skipUnlessInstalled } from './system-requirement.ts';

describe('skipUnlessInstalled', () => {
  it('runs the group when nothing is missing', () => {
    expect(skipUnlessInstalled('g', null, { CI: 'true' })).toBe(false);
    expect(skipUnlessInstalled('g', undefined, {})).toBe(false);
  });
  it('fails in CI with one line naming what is missing', () => {
    expect(() => skipUnlessInstalled('browser tests', 'no /usr/bin/chromium', { CI: 'true' })).toThrow(
      /^CI needs browser tests: no \/usr\/bin\/chromium \(bash \.ci\/ensure-apt\.sh installs it as root\)$/,
    );
  });
  it('skips outside CI and says so on stderr', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(skipUnlessInstalled('browser tests', 'no /usr/bin/chromium', { CI: 'false' })).toBe(true);
    expect(warn).toHaveBeenCalledWith('skipped — browser tests: no /usr/bin/chromium (bash .ci/ensure-apt.sh installs it as root)');
    warn.mockRestore();
  });
});
