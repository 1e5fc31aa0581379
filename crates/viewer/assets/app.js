// The page of `trama view`: asks the server for the trace's summary and
// draws what it is sent. The API is specified in docs/view-api.md.

const api = (path) => fetch(`api/${path}`).then((r) => {
  if (!r.ok) throw new Error(`${path}: ${r.status}`);
  return r.json();
});

async function main() {
  const meta = await api("meta");
  document.getElementById("name").textContent = meta.name;
  document.getElementById("span").textContent =
    `${meta.start} s – ${meta.end} s, ${meta.containers.length} containers`;
  document.body.dataset.state = "ready";
}

main().catch((e) => {
  document.body.dataset.state = "error";
  document.getElementById("main").textContent = String(e);
});
