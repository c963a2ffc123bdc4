/** Numbers in the bench tables: thousands separators, `d` decimals ("30,476", "1.19"). */
export const f = (x: number, d = 0) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

/** A target cell's verdict. */
export const mark = (ok: boolean) => (ok ? 'met' : '**missed**');
