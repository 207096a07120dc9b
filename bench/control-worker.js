// The soak's control (bench/run.mjs): a Worker that does nothing but answer,
// served by Miniflare like the real one. The growth of workerd's resident
// memory under load with this Worker is the local runtime's own, not the app's.
export default {
  fetch() {
    return new Response("ok");
  },
};
