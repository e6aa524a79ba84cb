#!/usr/bin/python3
"""scripts/plot.py's words, without matplotlib (stubbed here): legends name integrators and their
options as configs and docs/cli.md spell them, and every time axis says that lower is better (a label such as
"+compact +matq depth" says nothing a config spells)."""
import importlib.util
import pathlib
import re
import sys
import types
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "plot.py"


def load_plot():
    matplotlib = types.ModuleType("matplotlib")
    matplotlib.use = lambda backend: None
    matplotlib.pyplot = types.ModuleType("matplotlib.pyplot")
    matplotlib.ticker = types.ModuleType("matplotlib.ticker")
    matplotlib.ticker.LogFormatter = type("LogFormatter", (), {})
    sys.modules.setdefault("matplotlib", matplotlib)
    sys.modules.setdefault("matplotlib.pyplot", matplotlib.pyplot)
    sys.modules.setdefault("matplotlib.ticker", matplotlib.ticker)
    spec = importlib.util.spec_from_file_location("plot", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(integrator, options=None, **parameters):
    p = {"integrator": integrator, "backend": "pipeline", "width": 64, "height": 64, "spp": 1, "max_depth": 5,
         "rr_depth": 3, "seed": 1, "sampler": "halton", "options": options or {}}
    p.update(parameters)
    return {"parameters": p, "_source": "H100"}


class Labels(unittest.TestCase):
    def test_options_and_parameters_are_spelt_as_the_readme_spells_them(self):
        plot = load_plot()
        runs = [run("megakernel"),
                run("wavefront", {"compaction": True, "material_queues": True, "schedule": "depth"}, max_depth=8),
                run("wavefront", {"compaction": False, "material_queues": False, "schedule": "pool"})]
        label = plot.labeller(runs)
        self.assertEqual(label(runs[0]), "megakernel max_depth=5")
        self.assertEqual(label(runs[1]), "wavefront compaction=true material_queues=true schedule=depth max_depth=8")
        self.assertEqual(label(runs[2]), "wavefront compaction=false material_queues=false schedule=pool max_depth=5")
        for text in map(label, runs):
            self.assertNotRegex(text, r"(^| )[+-]\w|matq|compact\b| depth( |$)")

    def test_only_what_varies_is_named(self):
        plot = load_plot()
        runs = [run("megakernel"), run("megakernel-regen")]
        self.assertEqual([plot.labeller(runs)(r) for r in runs], ["megakernel", "megakernel-regen"])

    def test_an_option_is_named_where_it_varies_among_its_own_integrators_runs(self):
        # The wavefront's options do not vary here: that the megakernel has none is no difference
        # to name. Runs that differ only in timing (stages or frame) are told apart by it.
        plot = load_plot()
        wavefront = {"schedule": "depth", "pool_size": 1 << 20, "compaction": True}
        runs = [run("megakernel", timing="stages"), run("wavefront", wavefront, timing="stages"),
                run("wavefront", wavefront, timing="frame")]
        self.assertEqual([plot.labeller(runs)(r) for r in runs],
                         ["megakernel timing=stages", "wavefront timing=stages", "wavefront timing=frame"])

    def test_the_gpu_builders_runs_are_their_own_backend_and_peers(self):
        # Software runs on the GPU builder's tree are neither labelled nor compared as
        # the CPU tree's.
        plot = load_plot()
        cpu = run("wavefront", {"software_bvh": "cwbvh"}, backend="software", scene="builtin:cornell")
        gpu = run("wavefront", {"software_bvh": "cwbvh", "software_builder": "gpu"}, backend="software",
                  scene="builtin:cornell")
        self.assertEqual(plot.backend_label(cpu), "software cwbvh")
        self.assertEqual(plot.backend_label(gpu), "software cwbvh gpu")
        self.assertNotEqual(plot.peer_key(cpu), plot.peer_key(gpu))

    def test_a_restir_run_is_the_peer_of_the_megakernel_with_restir(self):
        plot = load_plot()
        plain, restir = run("megakernel", scene="builtin:cornell"), run("megakernel", {"restir": "di"},
                                                                        scene="builtin:cornell")
        wavefront = run("wavefront", {"restir": "di", "schedule": "depth"}, scene="builtin:cornell")
        self.assertEqual(plot.peer_key(wavefront), plot.peer_key(restir))
        self.assertNotEqual(plot.peer_key(wavefront), plot.peer_key(plain))
        self.assertEqual(plot.peer_key(run("wavefront", {"restir": "off"}, scene="builtin:cornell")),
                         plot.peer_key(plain))

    def test_clock_bars_are_a_runs_phases_then_a_wavefronts_stages(self):
        plot = load_plot()
        phases = {"traversal": 0.5, "material": 0.25, "light": None, "rest": 0.25}
        megakernel = run("megakernel", counters="clocks")
        megakernel["clocks"] = {"phases": phases, "per_bounce": []}
        wavefront = run("wavefront", counters="clocks")
        wavefront["clocks"] = {"phases": phases, "per_stage": [{"stage": "extend", "phases": phases}]}
        bars = plot.clock_bars([megakernel, wavefront])
        self.assertEqual([name for name, _ in bars], ["megakernel", "wavefront", "wavefront: extend"])
        self.assertEqual(bars[0][1], [0.5, 0.25, 0, 0.25], "traversal, material, light, rest; no share is 0")

    def test_every_time_axis_says_lower_is_better(self):
        source = SCRIPT.read_text()
        labels = re.findall(r"set_[xy]label\((f?\"[^\"]*\")\)", source)
        times = [text for text in labels if re.search(r"\btime\b|\bms\b|relMSE", text)]
        self.assertGreaterEqual(len(times), 5, labels)
        for text in times:
            self.assertIn("LOWER_IS_BETTER", text)
        self.assertEqual(load_plot().LOWER_IS_BETTER, "lower is better")


if __name__ == "__main__":
    unittest.main()
