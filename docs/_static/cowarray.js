// Long dotted API names (cowarray.debug.reset_copy_counters) wrap after a dot,
// never inside a word: a <wbr> after each dot of page titles and sidebar links.
document.addEventListener("DOMContentLoaded", () => {
  const places = document.querySelectorAll(".bd-article h1, .bd-sidenav a");
  for (const place of places) {
    const walker = document.createTreeWalker(place, NodeFilter.SHOW_TEXT);
    const texts = [];
    while (walker.nextNode()) texts.push(walker.currentNode);
    for (const text of texts) {
      const parts = text.data.split(/(?<=\.)(?=\w)/);
      if (parts.length < 2) continue;
      const pieces = document.createDocumentFragment();
      parts.forEach((part, i) => {
        if (i > 0) pieces.appendChild(document.createElement("wbr"));
        pieces.appendChild(document.createTextNode(part));
      });
      text.replaceWith(pieces);
    }
  }
});
