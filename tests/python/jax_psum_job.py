"""The training program a TrainJob would run on a jax-runtimes runtime, for the e2e launch test.

It does what a user's JAX program does on Kubeflow Trainer: it reads the three variables the Trainer
JAX plugin injects into every `node` pod (JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID)
and passes them to `jax.distributed.initialize()`. Nothing else about the job is given to it.

Then it runs one cross-process collective: every device in the job contributes (its global id + 1)
to a `psum`, so the result is n*(n+1)/2 only if all n devices of all processes took part.

It prints exactly one line starting with `JAX_E2E_REPORT ` followed by JSON; the harness
(jax_launch.py) checks it. The program itself never decides whether the job is right.

Test knob (not part of the runtime contract): JAX_E2E_INIT_TIMEOUT_S bounds how long
`initialize()` waits for the other processes, so a broken runtime fails fast instead of in 5 minutes.
"""

import json
import os
import sys


def main() -> int:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    # The Trainer JAX plugin (pkg/runtime/framework/plugins/jax/jax.go) injects these; JAX reads
    # only JAX_COORDINATOR_ADDRESS by itself, so the count and id are passed explicitly.
    coordinator = os.environ["JAX_COORDINATOR_ADDRESS"]
    num_processes = int(os.environ["JAX_NUM_PROCESSES"])
    process_id = int(os.environ["JAX_PROCESS_ID"])
    init_timeout = int(os.environ.get("JAX_E2E_INIT_TIMEOUT_S", "300"))

    jax.distributed.initialize(
        coordinator_address=coordinator,
        num_processes=num_processes,
        process_id=process_id,
        initialization_timeout=init_timeout,
    )

    devices = jax.devices()
    local = jax.local_devices()
    mesh = Mesh(np.array(devices), ("d",))
    sharding = NamedSharding(mesh, P("d"))

    # Each local device holds one element: its global device position + 1.
    position = {d.id: i for i, d in enumerate(devices)}
    shards = [
        jax.device_put(np.array([position[d.id] + 1], dtype=np.int32), d)
        for d in sharding.addressable_devices
    ]
    global_array = jax.make_array_from_single_device_arrays((len(devices),), sharding, shards)

    def total(x):
        return jax.lax.psum(jnp.sum(x), "d")

    summed = jax.jit(
        jax.shard_map(total, mesh=mesh, in_specs=P("d"), out_specs=P())
    )(global_array)
    psum_value = int(np.asarray(summed.addressable_data(0)))

    report = {
        "process_index": jax.process_index(),
        "process_count": jax.process_count(),
        "global_device_count": jax.device_count(),
        "local_device_count": jax.local_device_count(),
        "platform": local[0].platform,
        "psum": psum_value,
        "env": {
            k: os.environ.get(k)
            for k in ("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_PLATFORMS")
        },
    }
    print("JAX_E2E_REPORT " + json.dumps(report, sort_keys=True), flush=True)
    jax.distributed.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
