// Shared by the page scripts: `window.benchRead(url, reps)` does one untimed
// warm-up read (codec modules, WebAssembly compilation, JIT), then `reps` timed
// whole-array reads (open + read), and returns the times in seconds and the
// sampled checksum of js_bench.mjs.
function checksum(data) {
  let s = 0;
  for (let k = 0; k < data.length; k += 4099) s += Number(data[k]);
  return s;
}

export function run(read) {
  window.benchRead = async (url, reps) => {
    try {
      const first = await read(url);
      const length = first.length;
      const times = [];
      let data;
      for (let k = 0; k < reps; k++) {
        data = undefined;
        const t = performance.now();
        data = await read(url);
        times.push((performance.now() - t) / 1000);
      }
      return { times, check: checksum(data), length, warm: checksum(first) };
    } catch (e) {
      return { error: String(e?.message ?? e).slice(0, 200) };
    }
  };
  window.benchReady = true;
}
