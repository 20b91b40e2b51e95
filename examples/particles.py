"""Particles: an array of @struct particles advanced by one explicit Euler step per launch,
with the simulation's parameters passed as a struct, checked against NumPy.

The particles live in a NumPy structured array whose dtype is `Particle.dtype` (laid out as
the struct's machine representation); each thread reads its particle, computes the updated
one with the struct's @func method, and stores it back (structs are immutable: the method
returns a new particle, built with `replace`).
"""

import numpy as np

from cuda import device
import weft


@device.struct
class Params:
    dt: device.float32
    gravity: device.float32
    drag: device.float32
    floor: device.float32


@device.struct
class Particle:
    x: device.float32
    y: device.float32
    z: device.float32
    vx: device.float32
    vy: device.float32
    vz: device.float32
    mass: device.float32

    @device.func
    def step(self, p):
        # Drag proportional to the velocity, gravity along -z, then bounce off the floor.
        k = 1.0 - p.drag * p.dt / self.mass
        vx = self.vx * k
        vy = self.vy * k
        vz = self.vz * k - p.gravity * p.dt
        z = self.z + vz * p.dt
        if z < p.floor:
            z = p.floor
            vz = -vz
        return self.replace(x=self.x + vx * p.dt, y=self.y + vy * p.dt, z=z, vx=vx, vy=vy, vz=vz)


@device.kernel
def advance(particles, params):
    i = device.tid(1)
    if i < particles.size:
        particles[i] = particles[i].step(params)


def reference(particles, params, steps):
    """The same update in NumPy, in float32."""
    p = {name: particles[name].copy() for name in particles.dtype.names}
    f = np.float32
    for _ in range(steps):
        k = f(1.0) - f(params.drag) * f(params.dt) / p["mass"]
        vx, vy = p["vx"] * k, p["vy"] * k
        vz = p["vz"] * k - f(params.gravity) * f(params.dt)
        z = p["z"] + vz * f(params.dt)
        below = z < f(params.floor)
        z = np.where(below, f(params.floor), z)
        vz = np.where(below, -vz, vz)
        p["x"] = p["x"] + vx * f(params.dt)
        p["y"] = p["y"] + vy * f(params.dt)
        p.update(z=z, vx=vx, vy=vy, vz=vz)
    return p


def main(n=4096, steps=20, target=None):
    rng = np.random.default_rng(0)
    particles = np.zeros(n, Particle.dtype)
    for name in ("x", "y", "vx", "vy", "vz"):
        particles[name] = rng.standard_normal(n)
    particles["z"] = rng.random(n) * 10.0
    particles["mass"] = 0.5 + rng.random(n)
    params = Params(dt=0.01, gravity=9.81, drag=0.1, floor=0.0)
    expected = reference(particles, params, steps)

    target = target or weft.default_target()
    data = weft.to_device(particles, target=target)
    block = 128
    for _ in range(steps):
        device.launch(advance, data, params, grid=(n + block - 1) // block, block=block, target=target)
    result = data.copy_to_host()
    for name in particles.dtype.names:
        np.testing.assert_allclose(result[name], expected[name], rtol=1e-4, atol=1e-5)
    print(f"particles on {target}: {n} particles, {steps} steps: matches NumPy")


if __name__ == "__main__":
    main()
