// ptbench's HTML report: lays out the model C++ wrote into #ptbench-data (core/experiment/html_report.cpp).
// Every number comes from there; the charts are Chart.js's. window.ptbenchReady is set once the
// page is drawn, window.ptbenchCharts lists every chart (the browser test reads both).
'use strict';
// The model is deflated and in base64 (html_report.cpp says why): the browser inflates it.
async function readModel() {
  const encoded = document.getElementById('ptbench-data').textContent.trim();
  const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return JSON.parse(await new Response(inflated).text());
}
readModel().then((model) => {
const root = document.getElementById('report');
window.ptbenchCharts = [];
Chart.defaults.animation = false;
Chart.defaults.responsive = true;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;

// Okabe and Ito's eight colours: told apart with every common colour-vision deficiency.
const palette = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];
const dashes = [[], [6, 3], [2, 2], [8, 3, 2, 3]];
const colour = (i) => palette[i % palette.length];
const dash = (i) => dashes[Math.floor(i / palette.length) % dashes.length];
const verdictColour = {
  REGRESSED: '#D55E00',
  faster: '#009E73',
  same: '#0072B2',
  unsure: '#E69F00',
  missing: '#999999'
};

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text')
      node.textContent = value;
    else if (key === 'className')
      node.className = value;
    else if (key.startsWith('on'))
      node.addEventListener(key.slice(2), value);
    else
      node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
const fixed = (value, decimals) => (value === null || value === undefined ? '' : Number(value).toFixed(decimals));
const section = (id, title, ...children) => el('section', {id}, el('h2', {text: title}), ...children);
const note = (text) => el('p', {className: 'note', text});

function table(headers, rows, attributes) {
  return el(
      'div', {className: 'table-wrap'},
      el('table', attributes || {},
         el('thead', {}, el('tr', {}, headers.map((h) => el('th', {scope: 'col', text: h})))), el('tbody', {}, rows)));
}

// A chart in a box of `height` px; `name` is what the test and the reader call it.
function chart(name, height, config) {
  const canvas = el('canvas', {role: 'img', 'aria-label': name});
  const box = el('div', {className: 'chart', style: `height:${height}px`, 'data-chart': name}, canvas);
  const pending = {name, canvas, config, chart: null};
  window.ptbenchCharts.push(pending);
  return box;
}

const reportEntry = model.reports[0];
const report = reportEntry.report;
const runs = report.runs;
const runInfo = new Map(reportEntry.runs.map((run) => [run.id, run]));
const ok = (run) => run.status === 'ok';
// A link to a file beside the report, named as it lies (report.json or report.json.gz), or its
// name marked absent: a page copied away from its results folder links nothing it cannot open.
const fileLink = (href, name) =>
    href ? el('a', {href, text: href.split('/').pop()}) : el('span', {text: `${name} (not beside this page)`});
const shortLabel = (run) => `${run.id} ${runInfo.get(run.id).integrator} ${runInfo.get(run.id).backend}`;

// ---- header
function header() {
  const title = model.kind === 'compare' ? 'comparison' : model.kind === 'history' ? 'history' : 'report';
  const config = report.config || {};
  const parts = [el('h1', {}, `${config.name || 'ptbench'} `, el('span', {className: 'kind', text: title}))];
  if (config.description) parts.push(el('p', {className: 'description', text: config.description}));
  parts.push(el('p', {className: 'device'}, el('strong', {text: 'device: '}), reportEntry.device_line));
  const cpu = reportEntry.cpu || (model.builds || []).some((b) => b.cpu);
  if (cpu)
    parts.push(el(
        'p', {className: 'banner', role: 'alert'}, el('strong', {text: 'Measured on a CPU implementation of Vulkan. '}),
        'Its times are the host CPU\'s, shared with whatever else ran there, and say nothing of a GPU: compare draws no verdict from them.'));
  const tool = model.generated_by || {};
  parts.push(
      el('p', {className: 'generated'},
         `page written by ptbench ${tool.version || ''} (${(tool.git_revision || '').slice(0, 12)}${
             tool.git_dirty ? ' dirty' : ''}); `,
         fileLink(reportEntry.json, 'report.json'), ', ', fileLink(reportEntry.csv, 'report.csv')));
  return el('header', {}, parts);
}

// ---- the verdict
function verdict() {
  const lines = reportEntry.verdict.lines;
  if (lines.length === 0)
    return section(
        'verdict', 'Verdict',
        note('No run here has a megakernel run of the same scene, backend and settings to be timed against.'));
  const rows = lines.map((line) => {
    const spread =
        line.spread ? `[${fixed(line.spread.low, 3)}, ${fixed(line.spread.high, 3)}] ${line.spread.kind}` : '';
    const flags = [];
    if (line.noisy)
      flags.push(
          el('span', {className: 'flag noisy', title: 'a run\'s frame times vary by more than 5%', text: 'noisy'}));
    if (line.winner)
      flags.push(el('span', {
        className: line.decisive ? 'flag winner' : 'flag winner weak',
        title: line.decisive ? 'faster than the megakernel beyond its spread' :
                               'fastest, but within its spread of 1, noisy or on a CPU',
        text: line.decisive ? 'winner' : `winner, not beyond noise: ${line.undecided_because}`
      }));
    return el(
        'tr', {'data-run-ids': line.run_ids.join(' '), 'data-megakernel-ids': line.megakernel_ids.join(' ')},
        el('td', {text: line.scene}), el('td', {text: line.integrator}), el('td', {text: line.backend}),
        el('td', {text: line.settings}), el('td', {className: 'number ratio', text: `${fixed(line.ratio, 3)}x`}),
        el('td', {className: 'number', text: spread}), el('td', {className: 'number', text: line.ratios.length}),
        el('td', {}, flags));
  });
  const groupsWon = lines.filter((l) => l.winner).length;
  return section(
      'verdict', 'Verdict',
      el('p', {className: 'convention'}, reportEntry.verdict.convention,
         '. Spread: the 99% interval of the ratio from every frame of both runs (compare\'s rule), or the range over a repeated sweep point\'s runs.'),
      table(
          ['scene', 'integrator', 'backend', 'settings', 'relative GPU time', 'spread', 'runs', ''], rows,
          {id: 'verdict-table'}),
      note(groupsWon ? '' : 'No integrator beat the megakernel: it wins every scene and backend here.'),
      chart('relative GPU time', 40 + 22 * lines.length, {
        type: 'bar',
        data: {
          labels: lines.map((l) => `${l.scene} ${l.integrator} ${l.backend} ${l.settings}`.trim()),
          // Bars from 1 (the megakernel) to the ratio: left is faster, right slower.
          datasets: [{
            label: 'GPU time / megakernel\'s',
            data: lines.map((l) => [1, l.ratio]),
            backgroundColor: lines.map((l) => (l.ratio < 1 ? palette[2] : palette[5]))
          }],
        },
        options: {
          indexAxis: 'y',
          scales: {
            x: {
              title: {
                display: true,
                text:
                    'GPU time relative to the megakernel: bars from 1, left of it faster (green), right slower (vermilion)'
              }
            }
          },
          plugins: {
            legend: {display: false},
            tooltip: {callbacks: {label: (item) => `${fixed(lines[item.dataIndex].ratio, 3)}x the megakernel's time`}}
          }
        },
      }));
}

// ---- the why: stages, bounces, kernels, clocks, SIMT, the pool
function why() {
  const timed = runs.filter(ok);
  const parts = [];
  const stageNames = [];
  for (const run of timed)
    for (const stage of run.stages || [])
      if (!stageNames.includes(stage.name)) stageNames.push(stage.name);
  const stageDatasets = stageNames.map((name, i) => ({
                                         label: name,
                                         backgroundColor: colour(i),
                                         data: timed.map((run) => {
                                           const s = (run.stages || []).find((x) => x.name === name);
                                           return s ? s.gpu_ms.median : 0;
                                         }),
                                       }));
  stageDatasets.push({
    label: 'overhead',
    backgroundColor: '#BBBBBB',
    data: timed.map((run) => (run.overhead_gpu_ms ? Math.max(0, run.overhead_gpu_ms.median) : 0))
  });
  parts.push(
      el('h3', {text: 'Where each run\'s frame goes'}),
      note(
          'Median GPU milliseconds of each stage a frame, stacked; overhead is the frame\'s time outside its stages (barriers, launch gaps). A frame-timed run has one stage.'),
      chart('stage breakdown', 50 + 24 * timed.length, {
        type: 'bar',
        data: {labels: timed.map(shortLabel), datasets: stageDatasets},
        options: {
          indexAxis: 'y',
          scales: {x: {stacked: true, title: {display: true, text: 'GPU ms a frame (median)'}}, y: {stacked: true}}
        },
      }));

  const bounced = timed.filter((run) => (run.stages || []).some((s) => s.gpu_ms_median_per_bounce));
  if (bounced.length) {
    const depth = Math.max(
        ...bounced.map((run) => Math.max(...run.stages.map((s) => (s.gpu_ms_median_per_bounce || []).length))));
    const bounces = [...Array(depth).keys()];
    parts.push(
        el('h3', {text: 'Per bounce'}), chart('time per bounce', 280, {
          type: 'line',
          data: {
            labels: bounces,
            datasets: bounced.map(
                (run, i) => ({
                  label: shortLabel(run),
                  borderColor: colour(i),
                  backgroundColor: colour(i),
                  borderDash: dash(i),
                  data: bounces.map(
                      (b) => run.stages.reduce((sum, s) => sum + ((s.gpu_ms_median_per_bounce || [])[b] || 0), 0))
                }))
          },
          options: {
            scales: {
              x: {title: {display: true, text: 'bounce'}},
              y: {title: {display: true, text: 'GPU ms (median, stages summed)'}}
            }
          },
        }));
  }
  const live = timed.filter((run) => run.work_per_bounce && run.work_per_bounce.live_paths);
  if (live.length) {
    const depth = Math.max(...live.map((run) => run.work_per_bounce.live_paths.length));
    const bounces = [...Array(depth).keys()];
    parts.push(chart('live paths per bounce', 280, {
      type: 'line',
      data: {
        labels: bounces,
        datasets: live.map((run, i) => ({
                             label: shortLabel(run),
                             borderColor: colour(i),
                             backgroundColor: colour(i),
                             borderDash: dash(i),
                             data: bounces.map((b) => run.work_per_bounce.live_paths[b] ?? null)
                           }))
      },
      options: {
        scales: {x: {title: {display: true, text: 'bounce'}}, y: {title: {display: true, text: 'live paths a frame'}}}
      },
    }));
  }
  const simt = timed.filter((run) => run.simt && run.simt.per_bounce);
  if (simt.length) {
    const depth = Math.max(...simt.map((run) => run.simt.per_bounce.length));
    const bounces = [...Array(depth).keys()];
    parts.push(el('h3', {text: 'SIMT utilisation at the shading point'}), chart('SIMT utilisation per bounce', 260, {
                 type: 'line',
                 data: {
                   labels: bounces,
                   datasets: simt.map(
                       (run, i) => ({
                         label: shortLabel(run),
                         borderColor: colour(i),
                         backgroundColor: colour(i),
                         borderDash: dash(i),
                         data: bounces.map((b) => (run.simt.per_bounce[b] ? run.simt.per_bounce[b].utilisation : null))
                       }))
                 },
                 options: {
                   scales: {
                     x: {title: {display: true, text: 'bounce'}},
                     y: {min: 0, max: 1, title: {display: true, text: 'active lanes / subgroup lanes'}}
                   }
                 },
               }));
  }
  const clocked = timed.filter((run) => run.clocks && run.clocks.phases);
  if (clocked.length) {
    const phases = [...new Set(clocked.flatMap((run) => Object.keys(run.clocks.phases)))];
    parts.push(el('h3', {text: 'Phase clocks'}), chart('phase shares', 50 + 24 * clocked.length, {
                 type: 'bar',
                 data: {
                   labels: clocked.map(shortLabel),
                   datasets: phases.map((phase, i) => ({
                                          label: phase,
                                          backgroundColor: colour(i),
                                          data: clocked.map((run) => run.clocks.phases[phase] ?? 0)
                                        }))
                 },
                 options: {
                   indexAxis: 'y',
                   scales: {
                     x: {stacked: true, max: 1, title: {display: true, text: 'share of the clocked lane-cycles'}},
                     y: {stacked: true}
                   }
                 },
               }));
  }
  const kernelRows = [];
  const reasons = new Set();
  for (const run of timed)
    for (const kernel of run.kernels || []) {
      if (kernel.occupancy)
        kernelRows.push(el(
            'tr', {}, el('td', {text: run.id}), el('td', {text: kernel.stage}), el('td', {text: kernel.shader}),
            el('td', {className: 'number', text: kernel.occupancy.registers_per_thread}),
            el('td',
               {className: 'number', text: `${kernel.occupancy.warps_per_sm}/${kernel.occupancy.max_warps_per_sm}`})));
      else if (kernel.occupancy_reason)
        reasons.add(kernel.occupancy_reason);
    }
  parts.push(el('h3', {text: 'Kernels: registers and occupancy'}));
  if (kernelRows.length)
    parts.push(table(['run', 'stage', 'shader', 'registers a thread', 'resident warps a SM'], kernelRows));
  for (const reason of reasons) parts.push(note(`No register counts: ${reason}.`));
  const pools = timed.filter((run) => run.parameters.options && run.parameters.options.pool_size !== undefined);
  if (pools.length)
    parts.push(
        el('h3', {text: 'The wavefront\'s pool'}),
        table(
            ['run', 'schedule', 'pool size', 'why that size'],
            pools.map(
                (run) =>
                    el('tr', {}, el('td', {text: run.id}), el('td', {text: run.parameters.options.schedule || ''}),
                       el('td', {className: 'number', text: run.parameters.options.pool_size}),
                       el('td', {text: run.wavefront_pool_reason || ''})))));
  return section('why', 'Why: each run\'s time, stage by stage', parts);
}

// ---- every run, by the metric list
function runTable() {
  const shown =
      model.metrics.filter((m) => m.in_summary && reportEntry.runs.some((r) => r.values[m.name] !== undefined));
  const rows = runs.map((run) => {
    const info = runInfo.get(run.id);
    const p = run.parameters;
    const cells = [
      el('td', {text: run.id}), el('td', {text: info.scene}), el('td', {text: info.integrator}),
      el('td', {text: info.backend}), el('td', {className: 'number', text: `${p.width}x${p.height}`}),
      el('td', {className: 'number', text: p.spp})
    ];
    if (!ok(run)) {
      cells.push(el('td', {
        colspan: shown.length,
        className: 'failed',
        text: run.status === 'interrupted' ? 'interrupted' : `failed: ${run.error || ''}`
      }));
    } else {
      for (const m of shown) {
        const value = info.values[m.name];
        let text = value === undefined ? '' : fixed(value * m.scale, m.decimals);
        if (m.name === 'frame_gpu_ms_cv' && run.noisy) text += '!';
        cells.push(el('td', {className: 'number', 'data-metric': m.name, text}));
      }
    }
    return el('tr', {id: `run-${run.id}`}, cells);
  });
  return section(
      'runs', 'Runs',
      table(
          [
            'run', 'scene', 'integrator', 'backend', 'size', 'spp',
            ...shown.map((m) => (m.unit ? `${m.header}` : m.header))
          ],
          rows, {id: 'runs-table'}),
      note('! beside a cv: the run\'s frame times vary by more than 5%; its median is uncertain.'),
      ...(report.notes || []).map((text) => note(text)));
}

// ---- images, side by side per scene, one zoom and pan per scene
function images() {
  const differences = reportEntry.differences || {};
  const byScene = new Map();
  for (const run of runs) {
    const info = runInfo.get(run.id);
    if (!info.image) continue;
    if (!byScene.has(info.scene)) byScene.set(info.scene, []);
    byScene.get(info.scene).push(run);
  }
  const missing = runs.filter((run) => runInfo.get(run.id).image_missing);
  const missingNote = missing.length ?
      note(`${missing.length} of the images this report's runs wrote are not beside it (${
          runInfo.get(missing[0].id).image_missing}${
          missing.length > 1 ?
              ', ...' :
              ''}): a published report keeps its numbers, not its images; run its config again to see them.`) :
      null;
  if (byScene.size === 0)
    return section('images', 'Images', missingNote || note('No run of this report wrote an image.'));
  const parts = [
    missingNote,
    note(
        'Scroll or + and - to zoom, drag or the arrow keys to pan, 0 to fit, d to switch to the difference to the megakernel\'s image; every image of a scene follows. Differences: per-pixel relative squared error, log scale, 1e-4 (dark) to 1 (yellow).')
  ];
  if (differences.error) parts.push(note(`No difference images: ${differences.error}`));
  for (const [scene, sceneRuns] of byScene) {
    const view = {scale: 1, x: 0, y: 0, difference: false};
    const tiles = [];
    const layers = [];
    const apply = () => {
      for (const layer of layers) layer.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.scale})`;
      for (const tile of tiles) tile.classList.toggle('showing-difference', view.difference);
      modeButton.textContent = view.difference ? 'show the images' : 'show the differences to the megakernel';
      modeButton.setAttribute('aria-pressed', view.difference ? 'true' : 'false');
    };
    const zoom = (factor, cx, cy) => {
      const scale = Math.min(64, Math.max(0.25, view.scale * factor));
      view.x = cx - ((cx - view.x) * scale) / view.scale;
      view.y = cy - ((cy - view.y) * scale) / view.scale;
      view.scale = scale;
      apply();
    };
    const reset = () => {
      view.scale = 1;
      view.x = 0;
      view.y = 0;
      apply();
    };
    const pan = (dx, dy) => {
      view.x += dx;
      view.y += dy;
      apply();
    };
    const toggleDifference = () => {
      view.difference = !view.difference;
      apply();
    };
    const modeButton = el('button', {type: 'button', onclick: toggleDifference});
    const group = el('div', {className: 'image-group', tabindex: '0', 'aria-label': `images of ${scene}`});
    for (const run of sceneRuns) {
      const info = runInfo.get(run.id);
      const difference = differences[run.id];
      const layer =
          el('div', {className: 'layer'}, el('img', {
               src: info.image,
               alt: `run ${run.id}: ${info.integrator} on ${info.backend}`,
               className: 'run-image',
               width: run.parameters.width,
               height: run.parameters.height
             }),
             difference && difference.image ? el('img', {
               src: difference.image,
               alt: `difference of run ${run.id} to run ${difference.against}`,
               className: 'difference-image',
               width: run.parameters.width,
               height: run.parameters.height
             }) :
                                              null);
      layers.push(layer);
      const fit = Math.min(1, 420 / run.parameters.width);
      const viewport =
          el('div', {
            className: 'viewport',
            style:
                `width:${Math.round(run.parameters.width * fit)}px;height:${Math.round(run.parameters.height * fit)}px`
          },
             layer);
      viewport.dataset.fit = fit;
      let caption = `${run.id} ${info.integrator} | ${info.backend}`;
      let detail = '';
      if (difference && difference.relmse !== undefined)
        detail =
            `relMSE to ${difference.against}: ${Number(difference.relmse).toExponential(3)}${flipText(difference)}`;
      else if (difference && difference.error)
        detail = `no difference: ${difference.error}`;
      else if (run.parameters.integrator === 'megakernel')
        detail = 'the megakernel: what the differences are to';
      if (run.convergence && run.convergence.relmse !== undefined)
        detail += `${detail ? '; ' : ''}relMSE to the reference: ${Number(run.convergence.relmse).toExponential(3)}${
            flipText(run.convergence)}`;
      const tile =
          el('figure', {className: 'tile'}, viewport,
             el('figcaption', {}, el('strong', {text: caption}), el('br'), detail));
      tiles.push(tile);
      group.append(tile);
      let drag = null;
      viewport.addEventListener('wheel', (event) => {
        event.preventDefault();
        const box = viewport.getBoundingClientRect();
        zoom(event.deltaY < 0 ? 1.25 : 0.8, event.clientX - box.left, event.clientY - box.top);
      }, {passive: false});
      viewport.addEventListener('pointerdown', (event) => {
        drag = {x: event.clientX - view.x, y: event.clientY - view.y};
        viewport.setPointerCapture(event.pointerId);
      });
      viewport.addEventListener('pointermove', (event) => {
        if (drag) {
          view.x = event.clientX - drag.x;
          view.y = event.clientY - drag.y;
          apply();
        }
      });
      viewport.addEventListener('pointerup', () => {
        drag = null;
      });
    }
    // Images start fitted to their viewport (their own pixels when smaller than 420 px).
    for (const layer of layers) layer.style.transformOrigin = '0 0';
    const fits = layers.map((layer) => Number(layer.parentElement.dataset.fit));
    layers.forEach((layer, i) => {
      layer.firstChild.style.width = `${layer.firstChild.width * fits[i]}px`;
      layer.firstChild.style.height = `${layer.firstChild.height * fits[i]}px`;
      if (layer.children[1]) {
        layer.children[1].style.width = layer.firstChild.style.width;
        layer.children[1].style.height = layer.firstChild.style.height;
      }
    });
    group.addEventListener('keydown', (event) => {
      const step = 40;
      const keys = {
        '+': () => zoom(1.25, 0, 0),
        '=': () => zoom(1.25, 0, 0),
        '-': () => zoom(0.8, 0, 0),
        '0': reset,
        ArrowLeft: () => pan(step, 0),
        ArrowRight: () => pan(-step, 0),
        ArrowUp: () => pan(0, step),
        ArrowDown: () => pan(0, -step),
        d: toggleDifference
      };
      if (keys[event.key]) {
        event.preventDefault();
        keys[event.key]();
      }
    });
    const toolbar = el(
        'div', {className: 'toolbar'}, el('button', {type: 'button', onclick: () => zoom(1.25, 0, 0), text: 'zoom in'}),
        el('button', {type: 'button', onclick: () => zoom(0.8, 0, 0), text: 'zoom out'}),
        el('button', {type: 'button', onclick: reset, text: 'fit'}), modeButton);
    parts.push(el('h3', {text: scene}), toolbar, group);
    apply();
  }
  return section('images', 'Images', parts);
}

// ", FLIP 0.1234" where a difference or a convergence has FLIP (reports from before it have none).
function flipText(errors) { return errors.flip !== undefined ? `, FLIP ${Number(errors.flip).toFixed(4)}` : ''; }

// ---- convergence, camera paths, ReSTIR's error per millisecond
function curves() {
  const parts = [];
  const converged = runs.filter((run) => ok(run) && run.convergence && run.convergence.relmse !== undefined);
  const convergence = (name, key, axis, scale) => {
    const series = new Map();
    for (const run of converged) {
      if (run.convergence[key] === undefined) continue;
      const label = runInfo.get(run.id).curve;
      if (!series.has(label)) series.set(label, []);
      series.get(label).push({x: run.frame_gpu_ms.median, y: run.convergence[key]});
    }
    return chart(name, 300, {
      type: 'scatter',
      data: {
        datasets: [...series].map(([label, points], i) => ({
                                    label,
                                    showLine: true,
                                    borderColor: colour(i),
                                    backgroundColor: colour(i),
                                    borderDash: dash(i),
                                    data: points.sort((a, b) => a.x - b.x)
                                  }))
      },
      options: {
        scales: {
          x: {type: 'logarithmic', title: {display: true, text: 'GPU ms a frame (median)'}},
          y: {type: scale, title: {display: true, text: axis}}
        }
      },
    });
  };
  if (converged.length) {
    parts.push(
        el('h3', {text: 'Convergence'}),
        convergence('convergence', 'relmse', 'relMSE to the reference', 'logarithmic'));
    if (converged.some((run) => run.convergence.flip !== undefined))
      parts.push(convergence('FLIP convergence', 'flip', 'FLIP to the reference (0 to 1, lower is better)', 'linear'));
  }
  const paths = runs.filter((run) => ok(run) && run.camera_path && run.camera_path.frames);
  if (paths.length) {
    const frames = Math.max(...paths.map((run) => run.camera_path.frames.length));
    const labels = [...Array(frames).keys()];
    const perFrame = (name, key, axis) => chart(name, 280, {
      type: 'line',
      data: {
        labels,
        datasets: paths.map((run, i) => ({
                              label: shortLabel(run),
                              borderColor: colour(i),
                              backgroundColor: colour(i),
                              borderDash: dash(i),
                              data: labels.map(
                                  (k) =>
                                      (run.camera_path.frames[k] && run.camera_path.frames[k][key] !== undefined ?
                                           run.camera_path.frames[k][key] :
                                           null))
                            }))
      },
      options: {
        scales: {x: {title: {display: true, text: 'frame of the camera path'}}, y: {title: {display: true, text: axis}}}
      },
    });
    parts.push(el('h3', {text: 'Camera paths'}), perFrame('GPU time per frame', 'gpu_ms', 'GPU ms'));
    if (paths.some((run) => run.camera_path.frames.some((f) => f.relmse !== undefined)))
      parts.push(perFrame('relMSE per frame', 'relmse', 'relMSE to the frame\'s reference'));
    if (paths.some((run) => run.camera_path.frames.some((f) => f.flip !== undefined)))
      parts.push(perFrame('FLIP per frame', 'flip', 'FLIP to the frame\'s reference (0 to 1, lower is better)'));
    const efficient = paths.filter((run) => run.camera_path.efficiency !== undefined);
    if (efficient.length)
      parts.push(chart('error per millisecond', 50 + 24 * efficient.length, {
        type: 'bar',
        data: {
          labels: efficient.map(shortLabel),
          datasets: [{
            label: '1 / (relMSE x s)',
            backgroundColor: palette[0],
            data: efficient.map((run) => run.camera_path.efficiency)
          }]
        },
        options: {
          indexAxis: 'y',
          plugins: {legend: {display: false}},
          scales: {
            x: {title: {display: true, text: 'efficiency, 1 / (mean relMSE x mean frame seconds): higher is better'}}
          }
        },
      }));
  }
  return parts.length ? section('curves', 'Convergence and camera paths', parts) : null;
}

// ---- compare's verdict against a base report
function comparison() {
  const c = model.compare;
  const judged = c.runs.filter((r) => r.ratio !== null);
  const rows = c.runs.map(
      (r) => el(
          'tr', {className: `verdict-${r.verdict}`},
          el('td', {}, el('span', {className: `flag verdict ${r.verdict}`, text: r.verdict})),
          el('td', {className: 'number', text: r.base_ms === null ? r.base_status : fixed(r.base_ms, 4)}),
          el('td', {className: 'number', text: r.new_ms === null ? r.new_status : fixed(r.new_ms, 4)}),
          el('td', {className: 'number', text: fixed(r.ratio, 3)}),
          el('td',
             {className: 'number', text: r.interval ? `[${fixed(r.interval[0], 3)}, ${fixed(r.interval[1], 3)}]` : ''}),
          el('td', {className: 'number', text: r.base_cv === null ? '' : `${fixed(100 * r.base_cv, 2)}%`}),
          el('td', {className: 'number', text: r.new_cv === null ? '' : `${fixed(100 * r.new_cv, 2)}%`}),
          el('td', {title: r.key, text: model.labels[r.key] || r.key})));
  return section(
      'compare', 'Against the base report',
      el('p', {className: `verdict-line ${c.verdict}`}, el('strong', {text: c.verdict}),
         ` ${c.line.replace(/^compare: verdict \S+ ?/, '')}`),
      el('p', {className: 'device'}, el('strong', {text: 'base: '}), c.base.device_line, ' ',
         fileLink(c.base.json, 'report.json')),
      note(`A run is REGRESSED where the whole ${c.confidence * 100}% interval of new/base lies above 1 + ${
          fixed(
              100 * c.threshold,
              1)}%, faster where it lies below 1 - that, unsure where it reaches past it, same otherwise.`),
      judged.length ? chart('compare ratios', 50 + 22 * judged.length, {
        type: 'bar',
        data: {
          labels: judged.map((r) => model.labels[r.key] || r.key),
          datasets: [
            {
              label: 'interval',
              data: judged.map((r) => (r.interval ? r.interval : [r.ratio, r.ratio])),
              backgroundColor: judged.map((r) => verdictColour[r.verdict] || '#999')
            },
            {
              label: 'ratio new/base',
              type: 'scatter',
              data: judged.map((r, i) => ({x: r.ratio, y: i})),
              backgroundColor: '#000',
              pointStyle: 'line',
              radius: 8,
              yAxisID: 'y'
            }
          ]
        },
        options: {
          indexAxis: 'y',
          scales: {x: {title: {display: true, text: 'new / base frame time'}}, y: {type: 'category'}}
        },
      }) :
                      null,
      table(
          ['verdict', 'base ms', 'new ms', 'ratio', 'interval', 'base cv', 'new cv', 'run'], rows,
          {id: 'compare-table'}));
}

// ---- a config's runs across builds
function history() {
  const builds = model.builds;
  const keys = [...new Set(builds.flatMap((b) => Object.keys(b.medians)))];
  const labels = builds.map((b) => `${b.revision.slice(0, 8)}${b.dirty ? '+' : ''} ${b.date.slice(0, 10)}`);
  const regressions = [];
  const datasets = keys.map((key, i) => {
    const styles = builds.map((b) => {
      const judged = b.compare ? b.compare.runs.find((r) => r.key === key) : null;
      if (judged && judged.verdict === 'REGRESSED') regressions.push({key, build: b, judged});
      return judged && judged.verdict === 'REGRESSED' ? 'triangle' : 'circle';
    });
    return {
      label: model.labels[key] || key,
      borderColor: colour(i),
      backgroundColor: colour(i),
      borderDash: dash(i),
      data: builds.map((b) => b.medians[key] ?? null),
      pointStyle: styles,
      pointRadius: styles.map((s) => (s === 'triangle' ? 9 : 3))
    };
  });
  const steps = builds.slice(1).map(
      (b, i) =>
          el('tr', {}, el('td', {text: labels[i]}), el('td', {text: labels[i + 1]}),
             el('td', {}, el('span', {className: `flag verdict ${b.compare.verdict}`, text: b.compare.verdict})),
             el('td', {text: b.compare.line})));
  return section(
      'history', 'History across builds',
      note(
          'Each run\'s median GPU time a frame, build by build (oldest first); a triangle marks a step compare calls REGRESSED against the build before.'),
      chart('history', 360, {
        type: 'line',
        data: {labels, datasets},
        options: {
          scales: {y: {title: {display: true, text: 'GPU ms a frame (median)'}}},
          plugins: {legend: {position: 'bottom'}}
        }
      }),
      table(['from', 'to', 'verdict', 'compare'], steps, {id: 'history-table'}),
      regressions.length ? table(
                               ['build', 'run', 'ratio', 'interval'],
                               regressions.map(
                                   (r) => el(
                                       'tr', {}, el('td', {text: r.build.revision.slice(0, 12)}),
                                       el('td', {title: r.key, text: model.labels[r.key] || r.key}),
                                       el('td', {className: 'number', text: fixed(r.judged.ratio, 3)}), el('td', {
                                         className: 'number',
                                         text: r.judged.interval ?
                                             `[${fixed(r.judged.interval[0], 3)}, ${fixed(r.judged.interval[1], 3)}]` :
                                             ''
                                       })))) :
                           note('No step regressed.'));
}

// ---- the config and every run's parameters
function config() {
  return section(
      'config', 'Config and parameters',
      el('details', {}, el('summary', {text: 'the resolved config'}),
         el('pre', {text: JSON.stringify(report.config, null, 2)})),
      el('details', {}, el('summary', {text: 'every run\'s parameters'}),
         table(
             ['run', 'parameters'],
             runs.map((run) => el('tr', {}, el('td', {text: run.id}), el('td', {}, el('code', {
                                                                           text: JSON.stringify(run.parameters)
                                                                         })))))),
      el('p', {}, 'The whole report: ', fileLink(reportEntry.json, 'report.json'),
         ', one row per run and stage: ', fileLink(reportEntry.csv, 'report.csv'), '.'));
}

const nav = el('nav', {'aria-label': 'sections'});
root.append(header(), nav);
if (model.kind === 'compare') root.append(comparison());
if (model.kind === 'history') root.append(history());
for (const part of [verdict(), why(), runTable(), images(), curves(), config()])
  if (part) root.append(part);
for (const heading of root.querySelectorAll('section > h2'))
  nav.append(el('a', {href: `#${heading.parentElement.id}`, text: heading.textContent}));
for (const pending of window.ptbenchCharts) pending.chart = new Chart(pending.canvas, pending.config);
window.ptbenchReady = true;
});
