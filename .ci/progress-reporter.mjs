// A vitest reporter for CI: appends each test file's queue, start and end, and
// each test's start, with the time, to the file named by ZARR_TEST_PROGRESS.
// When a run hangs, .ci/run prints this file's tail, which names the file and
// the test that never finished (vitest's own output only lists finished files).
import { appendFileSync } from "node:fs";

export default class ProgressReporter {
  constructor(file) {
    this.file = file;
    this.start = Date.now();
  }
  log(event, name) {
    const seconds = ((Date.now() - this.start) / 1000).toFixed(1);
    appendFileSync(this.file, `+${seconds}s ${event} ${name}\n`);
  }
  onTestModuleQueued(module) {
    this.log("queued", module.moduleId);
  }
  onTestModuleStart(module) {
    this.log("start", module.moduleId);
  }
  onTestModuleEnd(module) {
    this.log(`end (${module.state()})`, module.moduleId);
  }
  onTestCaseReady(test) {
    this.log("test", test.fullName);
  }
}
