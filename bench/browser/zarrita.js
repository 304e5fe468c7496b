// Page script for the Chromium row: zarrita 0.7.5 reading the same array with
// @zarrita/storage's FetchStore, bundled the same way as ours.js.
import FetchStore from "@zarrita/storage/fetch";
import * as zarr from "zarrita";
import { run } from "./harness.js";

run(async (url) => {
  const array = await zarr.open(new FetchStore(url), { kind: "array" });
  return (await zarr.get(array, null)).data;
});
