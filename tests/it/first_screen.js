// What a report.html shows in its first screen, measured by the browser's own layout and
// appended to the page as <pre id="layout"> (test_report.sh loads the page in headless
// Chromium with this script injected before </body> and reads the DOM back):
//   vw, vh          the viewport's width, and the first screen's height (800)
//   scroll          the page's scroll width (more than vw: it scrolls sideways)
//   h1, verdict     the bottom of the title and of the verdict table (px from the top)
//   answers         how many one-sentence answers there are, and the bottom of the last
//   overflow        tables whose right edge passes the viewport
//   broken          words (of the cells of every table but the environment's, whose command
//                   lines may break anywhere) laid out on more than one line
//   tall            the verdict table's cells laid out on more than two lines (their text)
//   text            the first screen's text: every text node that starts above SCREEN_H
(function () {
  // A 1280x800 window; headless Chromium's --dump-dom gives a shorter viewport than its
  // window, which changes no position, so the first screen is measured against 800 px.
  const SCREEN_H = 800, vw = document.documentElement.clientWidth;
  const bottom = (e) => (e ? Math.round(e.getBoundingClientRect().bottom) : -1);
  const out = [];
  const answers = [...document.querySelectorAll("ul.verdict > li")];
  out.push("vw=" + vw, "vh=" + SCREEN_H, "scroll=" + document.documentElement.scrollWidth);
  out.push("h1=" + bottom(document.querySelector("h1")));
  out.push("verdict=" + bottom(document.getElementById("verdict")));
  out.push("answers=" + answers.length + "," + bottom(answers[answers.length - 1]));
  const overflow = [], broken = [];
  document.querySelectorAll("table").forEach((t, i) => {
    if (t.getBoundingClientRect().right > vw + 0.5) overflow.push(t.id || "table" + i);
    if (t.id.startsWith("env")) return;
    const walk = document.createTreeWalker(t, NodeFilter.SHOW_TEXT);
    for (let n; (n = walk.nextNode()); ) {
      const re = /[^\s]+/g;
      for (let m; (m = re.exec(n.data)); ) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
        if (lines.size > 1) broken.push((t.id || "table" + i) + ":" + m[0]);
      }
    }
  });
  out.push("overflow=" + overflow.join(","), "broken=" + broken.join(","));
  // A cell's lines: the tops of its text's boxes, a new line where one starts more than half
  // a line below the last (a mark raised in the line is not a line of its own).
  const tall = [...document.querySelectorAll("#verdict td")].filter((td) => {
    const r = document.createRange(), half = parseFloat(getComputedStyle(td).fontSize) / 2;
    r.selectNodeContents(td);
    const tops = [...r.getClientRects()].filter((x) => x.width > 0).map((x) => x.top).sort((a, b) => a - b);
    return tops.filter((t, i) => i === 0 || t - tops[i - 1] > half).length > 2;
  });
  out.push("tall=" + tall.map((td) => td.textContent.trim()).join(" | "));
  const seen = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode()); ) {
    if (!n.data.trim() || n.parentElement.closest("svg,style")) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    const rect = r.getBoundingClientRect();
    if (rect.height > 0 && rect.top < SCREEN_H) seen.push(n.data.trim());
  }
  const p = document.createElement("pre");
  p.id = "layout";
  p.textContent = out.join("\n") + "\ntext=" + seen.join(" | ");
  document.body.appendChild(p);
})();
