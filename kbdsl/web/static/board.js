// Pinch-zoom and pan on the board (fingers on a phone, ctrl+wheel or a trackpad's pinch elsewhere),
// inside the board's box: the page itself never zooms or scrolls sideways. A drag that moved the
// board is not a click on a hex.
"use strict";

const zoom = {scale: 1, x: 0, y: 0, pointers: new Map(), pinch: null, moved: false};

function zoomApply() {
  const box = document.getElementById("board");
  const svg = box.querySelector("svg");
  if (!svg) return;
  const w = box.clientWidth, h = box.clientHeight;
  zoom.scale = Math.min(4, Math.max(1, zoom.scale));
  zoom.x = Math.min(0, Math.max(w - w * zoom.scale, zoom.x)); // the board never leaves its box
  zoom.y = Math.min(0, Math.max(h - h * zoom.scale, zoom.y));
  svg.style.transformOrigin = "0 0";
  svg.style.transform = zoom.scale === 1 ? "" : `translate(${zoom.x}px, ${zoom.y}px) scale(${zoom.scale})`;
  box.classList.toggle("zoomed", zoom.scale > 1);
  captionSize(svg);
  document.getElementById("zoom-reset").hidden = zoom.scale === 1;
}

// Location captions at 10 px or more as drawn, wherever the board is shown at a scale where that
// fits (up to 13 drawing units); a board drawn smaller (a phone) keeps 10 units until zoomed in.
function captionSize(svg) {
  const r = svg.getBoundingClientRect(), v = svg.viewBox.baseVal;
  if (!v || !v.width || !r.width) return;
  const k = Math.min(r.width / v.width, r.height / v.height); // drawn pixels per unit, zoom included
  const size = k >= 10 / 13 ? Math.max(10, 10 / k) : 10;
  svg.querySelectorAll("text.name").forEach(n => { n.style.fontSize = `${size.toFixed(2)}px`; });
}

function zoomAt(factor, cx, cy) { // scale by `factor` keeping the point (cx, cy) of the box in place
  const before = zoom.scale;
  zoom.scale = Math.min(4, Math.max(1, before * factor));
  const k = zoom.scale / before;
  zoom.x = cx - (cx - zoom.x) * k;
  zoom.y = cy - (cy - zoom.y) * k;
  zoomApply();
}

(() => {
  const box = document.getElementById("board");
  const local = e => { const r = box.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
  box.addEventListener("pointerdown", e => {
    zoom.pointers.set(e.pointerId, local(e));
    if (zoom.pointers.size === 1) zoom.moved = false;
    if (zoom.pointers.size === 2) {
      const [a, b] = [...zoom.pointers.values()];
      zoom.pinch = {d: Math.hypot(a[0] - b[0], a[1] - b[1]) || 1, scale: zoom.scale};
    }
  });
  box.addEventListener("pointermove", e => {
    if (!zoom.pointers.has(e.pointerId)) return;
    const [px, py] = zoom.pointers.get(e.pointerId);
    const [x, y] = local(e);
    zoom.pointers.set(e.pointerId, [x, y]);
    if (zoom.pointers.size === 2 && zoom.pinch) {
      const [a, b] = [...zoom.pointers.values()];
      const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
      zoomAt(zoom.pinch.scale * d / zoom.pinch.d / zoom.scale, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
      zoom.moved = true;
    } else if (zoom.scale > 1 && e.buttons) {
      zoom.x += x - px;
      zoom.y += y - py;
      if (Math.abs(x - px) + Math.abs(y - py) > 1) zoom.moved = true;
      zoomApply();
    }
  });
  const up = e => { zoom.pointers.delete(e.pointerId); if (zoom.pointers.size < 2) zoom.pinch = null; };
  box.addEventListener("pointerup", up);
  box.addEventListener("pointercancel", up);
  box.addEventListener("wheel", e => {
    if (!e.ctrlKey) return; // a plain wheel scrolls the side panels, never the board
    e.preventDefault();
    const [x, y] = local(e);
    zoomAt(Math.exp(-e.deltaY / 200), x, y);
  }, {passive: false});
  document.getElementById("zoom-reset").addEventListener("click", () => { zoom.scale = 1; zoom.x = zoom.y = 0; zoomApply(); });
  window.addEventListener("resize", zoomApply);
})();
