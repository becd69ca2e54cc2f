// Draws one Plotly figure (app/lib/plotly_view.py) with plotly.js's cartesian bundle, which
// the app serves itself (app/static/). The bundle is loaded once per page, when the first
// chart mounts; every chart of the page then draws with it.
//
// data: {figure: the figure's JSON text, config: plotly.js config, selectable: bool}
// state "selection": {points: [{curve_number, point_index, x, y, customdata}]} after a
// click, box or lasso selection (empty after a double-click deselects).

const LIBRARY = "app/static/plotly-cartesian.min.js";

// The server's root as Streamlit's own bundle is served from it (".../static/js/index.*.js"):
// right under a --server.baseUrlPath and on every page's URL.
function libraryUrl() {
  const own = document.querySelector('script[src*="/static/js/index."]');
  return own ? new URL(`../../${LIBRARY}`, own.src).href : new URL(LIBRARY, document.baseURI).href;
}

function loadPlotly() {
  if (!window.__perfPlotly) {
    window.__perfPlotly = new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = libraryUrl();
      tag.onload = () => resolve(window.Plotly);
      tag.onerror = () => {
        window.__perfPlotly = undefined; // the next chart tries again
        reject(new Error(`could not load ${tag.src} (is server.enableStaticServing on?)`));
      };
      document.head.appendChild(tag);
    });
  }
  return window.__perfPlotly;
}

function selectedPoints(event) {
  return ((event && event.points) || []).map((p) => ({
    curve_number: p.curveNumber,
    point_index: p.pointIndex ?? p.pointNumber,
    x: p.x ?? null,
    y: p.y ?? null,
    customdata: p.customdata ?? null,
  }));
}

// Redraw at the new width when the chart's column changes width (window resized, sidebar
// opened or closed): plotly.js's own `responsive` follows the window only.
function followWidth(root, Plotly) {
  if (root.__perfObserver) return;
  let width = root.clientWidth;
  root.__perfObserver = new ResizeObserver(() => {
    if (root.clientWidth > 0 && root.clientWidth !== width) {
      width = root.clientWidth;
      Plotly.Plots.resize(root);
    }
  });
  root.__perfObserver.observe(root);
}

function listen(root) {
  const send = (points) => root.__perfSetState("selection", { points });
  root.on("plotly_click", (event) => send(selectedPoints(event)));
  root.on("plotly_selected", (event) => send(selectedPoints(event)));
  root.on("plotly_deselect", () => send([]));
}

export default function ({ data, parentElement, setStateValue }) {
  let root = parentElement.querySelector("div.perf-plot");
  if (!root) {
    root = document.createElement("div");
    root.className = "perf-plot";
    parentElement.appendChild(root);
  }
  root.__perfSetState = setStateValue; // listeners bound once send through the latest one
  const figure = JSON.parse(data.figure);
  // Whatever the config says, nothing offers to send the chart to another host (Chart
  // Studio's "Edit in Chart Studio" / "Share chart...").
  const config = { ...data.config, showSendToCloud: false, showEditInChartStudio: false };
  delete config.plotlyServerURL;
  if (data.selectable) {
    config.modeBarButtonsToAdd = ["select2d", "lasso2d"];
  }
  loadPlotly()
    .then((Plotly) => {
      followWidth(root, Plotly);
      return Plotly.react(root, figure.data || [], figure.layout || {}, config);
    })
    .then(() => {
      if (data.selectable && !root.__perfListening) {
        root.__perfListening = true;
        listen(root);
      }
    })
    .catch((error) => {
      root.classList.add("perf-plot-error");
      root.textContent = `This chart could not be drawn: ${error.message}`;
    });
}
