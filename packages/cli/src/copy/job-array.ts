/**
 * `zarr copy --part auto`: which part of a job array this process is, read
 * from the environment its scheduler sets for each task.
 *
 * | scheduler | index | count |
 * | --- | --- | --- |
 * | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX` | `--parts N` or `ZARR_COPY_PARTS` (the Job's `completions`) |
 * | AWS Batch array job | `AWS_BATCH_JOB_ARRAY_INDEX` | `--parts N` or `ZARR_COPY_PARTS` (the array size) |
 * | GCP Batch | `BATCH_TASK_INDEX` | `BATCH_TASK_COUNT` |
 * | Slurm job array | `SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN` (÷ `SLURM_ARRAY_TASK_STEP`) | `SLURM_ARRAY_TASK_COUNT` |
 *
 * @module
 */
import { UsageError } from "../usage.js";

/** A part found in the environment, and where it came from (for the log line). */
export interface JobArrayPart {
  readonly part: number;
  readonly parts: number;
  readonly source: string;
}

/** The variable naming a part count for schedulers that do not set one. */
export const PARTS_VARIABLE = "ZARR_COPY_PARTS";

/** A non-negative integer environment value, or a usage error naming the variable. */
function integer(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) {
    throw new UsageError(`--part auto: ${name}="${text}" is not a non-negative integer`);
  }
  return n;
}

/**
 * The part count given by `--parts` (`partsOption`) or {@link PARTS_VARIABLE},
 * for schedulers whose tasks are not told it.
 */
function givenCount(
  env: NodeJS.ProcessEnv,
  partsOption: number | undefined,
  scheduler: string,
  indexVariable: string,
): number {
  const count = partsOption ?? integer(env, PARTS_VARIABLE);
  if (count === undefined) {
    throw new UsageError(
      `--part auto: ${indexVariable}=${env[indexVariable]} (${scheduler}) gives this task's index but not how many parts there are: pass --parts N or set ${PARTS_VARIABLE}`,
    );
  }
  return count;
}

/**
 * The count a scheduler sets in `variable`; a usage error when `--parts` or
 * {@link PARTS_VARIABLE} says otherwise (tasks would split the work into
 * parts that do not cover it).
 */
function agreeingCount(
  env: NodeJS.ProcessEnv,
  partsOption: number | undefined,
  variable: string,
): number | undefined {
  const scheduler = integer(env, variable);
  for (const [given, what] of [
    [partsOption, "--parts"],
    [integer(env, PARTS_VARIABLE), PARTS_VARIABLE],
  ] as const) {
    if (given !== undefined && scheduler !== undefined && given !== scheduler) {
      throw new UsageError(
        `--part auto: ${what} says ${given} parts but ${variable}=${scheduler}: leave ${what} out, or make them agree`,
      );
    }
  }
  return scheduler ?? partsOption;
}

/** What each scheduler's variables say, when they are set. */
function candidates(env: NodeJS.ProcessEnv, partsOption: number | undefined): JobArrayPart[] {
  const found: JobArrayPart[] = [];
  const k8s = integer(env, "JOB_COMPLETION_INDEX");
  if (k8s !== undefined) {
    const parts = givenCount(env, partsOption, "Kubernetes Indexed Job", "JOB_COMPLETION_INDEX");
    found.push({ part: k8s, parts, source: "JOB_COMPLETION_INDEX (Kubernetes Indexed Job)" });
  }
  const aws = integer(env, "AWS_BATCH_JOB_ARRAY_INDEX");
  if (aws !== undefined) {
    const parts = givenCount(env, partsOption, "AWS Batch array job", "AWS_BATCH_JOB_ARRAY_INDEX");
    found.push({ part: aws, parts, source: "AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch array job)" });
  }
  const gcp = integer(env, "BATCH_TASK_INDEX");
  if (gcp !== undefined) {
    const parts = agreeingCount(env, partsOption, "BATCH_TASK_COUNT");
    if (parts === undefined) {
      throw new UsageError(
        "--part auto: BATCH_TASK_INDEX is set (GCP Batch) but BATCH_TASK_COUNT is not: pass --parts N",
      );
    }
    found.push({ part: gcp, parts, source: "BATCH_TASK_INDEX/BATCH_TASK_COUNT (GCP Batch)" });
  }
  const slurm = integer(env, "SLURM_ARRAY_TASK_ID");
  if (slurm !== undefined) {
    const min = integer(env, "SLURM_ARRAY_TASK_MIN") ?? 0;
    const step = integer(env, "SLURM_ARRAY_TASK_STEP") ?? 1;
    const parts = agreeingCount(env, partsOption, "SLURM_ARRAY_TASK_COUNT");
    if (parts === undefined) {
      throw new UsageError(
        "--part auto: SLURM_ARRAY_TASK_ID is set (Slurm job array) but SLURM_ARRAY_TASK_COUNT is not: pass --parts N",
      );
    }
    const offset = slurm - min;
    if (step < 1 || offset < 0 || offset % step !== 0) {
      throw new UsageError(
        `--part auto: SLURM_ARRAY_TASK_ID=${slurm} is not MIN + k × STEP (MIN ${min}, STEP ${step}): use a range like --array=0-15 or give --part i/N`,
      );
    }
    found.push({
      part: offset / step,
      parts,
      source: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT (Slurm job array)",
    });
  }
  return found;
}

/**
 * This task's part of a job array, from the scheduler's environment (see the
 * module's table); `partsOption` is `--parts N`. A usage error when no
 * scheduler's variables are set, when two schedulers disagree, or when the
 * index is not below the count.
 */
export function partFromEnvironment(
  env: NodeJS.ProcessEnv,
  partsOption: number | undefined,
): JobArrayPart {
  const found = candidates(env, partsOption);
  if (found.length === 0) {
    throw new UsageError(
      "--part auto: no job-array index in the environment (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX, BATCH_TASK_INDEX or SLURM_ARRAY_TASK_ID): give --part i/N",
    );
  }
  const [first] = found;
  const other = found.find((f) => f.part !== first.part || f.parts !== first.parts);
  if (other !== undefined) {
    throw new UsageError(
      `--part auto: ${first.source} says part ${first.part}/${first.parts} but ${other.source} says ${other.part}/${other.parts}: give --part i/N`,
    );
  }
  if (first.parts < 1 || first.part >= first.parts) {
    throw new UsageError(
      `--part auto: ${first.source} gives part ${first.part} of ${first.parts}: the index must be below the count`,
    );
  }
  return first;
}
