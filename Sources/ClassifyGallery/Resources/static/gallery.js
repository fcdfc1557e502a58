// classify gallery: suggestions while typing, the color picker, infinite scrolling and the
// duplicate threshold. Every page works without it; this only makes them quicker to use.
"use strict";

(() => {
  // The term being typed: the text after the last space, parenthesis or leading minus.
  function currentTerm(input) {
    const before = input.value.slice(0, input.selectionStart ?? input.value.length);
    const match = before.match(/(?:^|[\s(])-?([^\s()":]*)$/);
    return match ? { text: match[1], start: before.length - match[1].length, end: before.length } : null;
  }

  function setUpSuggestions() {
    const input = document.querySelector(".search input[type=search]");
    const list = document.getElementById("suggestions");
    if (!input || !list) return;
    let items = [];
    let selected = -1;
    let pending = null;
    let generation = 0;

    function close() {
      list.hidden = true;
      list.replaceChildren();
      items = [];
      selected = -1;
      input.setAttribute("aria-expanded", "false");
    }

    function choose(index) {
      const term = currentTerm(input);
      const item = items[index];
      if (!term || !item) return;
      const value = input.value;
      const insert = item.identifier + " ";
      input.value = value.slice(0, term.start) + insert + value.slice(term.end).replace(/^\s+/, "");
      const caret = term.start + insert.length;
      input.setSelectionRange(caret, caret);
      close();
      input.focus();
    }

    function highlight(index) {
      selected = index;
      [...list.children].forEach((child, position) => child.setAttribute("aria-selected", String(position === index)));
    }

    function show(suggestions) {
      items = suggestions;
      list.replaceChildren(...suggestions.map((suggestion, index) => {
        const item = document.createElement("li");
        item.setAttribute("role", "option");
        item.id = "suggestion-" + index;
        const name = document.createElement("span");
        name.textContent = suggestion.identifier.replaceAll("_", " ");
        if (suggestion.name.toLowerCase().replaceAll("_", " ") !== suggestion.identifier.replaceAll("_", " ")) {
          const alias = document.createElement("span");
          alias.className = "alias";
          alias.textContent = " (" + suggestion.name + ")";
          name.append(alias);
        }
        const count = document.createElement("span");
        count.className = "count";
        count.textContent = suggestion.images > 0 ? suggestion.images.toLocaleString("en-US") + " photos" : "none yet";
        item.append(name, count);
        item.addEventListener("mousedown", (event) => { event.preventDefault(); choose(index); });
        return item;
      }));
      list.hidden = suggestions.length === 0;
      input.setAttribute("aria-expanded", String(suggestions.length > 0));
      selected = -1;
    }

    input.addEventListener("input", () => {
      clearTimeout(pending);
      const term = currentTerm(input);
      if (!term || term.text.length < 1 || term.text.includes(":")) { close(); return; }
      const asked = ++generation;
      pending = setTimeout(async () => {
        try {
          const response = await fetch("/api/suggest?limit=8&q=" + encodeURIComponent(term.text));
          if (!response.ok || asked !== generation) return;
          const body = await response.json();
          if (asked === generation) show(body.suggestions);
        } catch { close(); }
      }, 90);
    });
    input.addEventListener("keydown", (event) => {
      if (list.hidden) return;
      if (event.key === "ArrowDown") { event.preventDefault(); highlight(Math.min(items.length - 1, selected + 1)); }
      else if (event.key === "ArrowUp") { event.preventDefault(); highlight(Math.max(0, selected - 1)); }
      else if ((event.key === "Enter" || event.key === "Tab") && selected >= 0) { event.preventDefault(); choose(selected); }
      else if (event.key === "Escape") { event.preventDefault(); close(); }  // not also clear the box
    });
    input.addEventListener("blur", () => setTimeout(close, 120));
  }

  // The color picker fills the hidden `color` field and searches at once.
  function setUpColor() {
    const picker = document.getElementById("color-picker");
    const field = document.querySelector(".search input[name=color]");
    if (!picker || !field) return;
    picker.addEventListener("change", () => {
      field.value = picker.value.replace("#", "").toUpperCase();
      picker.form.requestSubmit();
    });
    // Keep URLs short: leave empty fields out of the query string.
    picker.form.addEventListener("submit", () => {
      for (const element of picker.form.elements) {
        if (element.name && element.value === "") element.disabled = true;
      }
    });
  }

  // Infinite scrolling: when the pager comes into view, fetch the next page and append its tiles.
  function setUpInfiniteScroll() {
    const grid = document.getElementById("grid");
    const pager = document.querySelector(".pager");
    if (!grid || !pager || !("IntersectionObserver" in window)) return;
    let loading = false;
    const observer = new IntersectionObserver(async (entries) => {
      const next = document.getElementById("next-page");
      if (!entries.some((entry) => entry.isIntersecting) || !next || loading) return;
      loading = true;
      pager.classList.add("loading");
      try {
        const response = await fetch(next.href, { headers: { Accept: "text/html" } });
        if (!response.ok) throw new Error(response.statusText);
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        // A month that goes on from the page before keeps its one heading.
        grid.append(...[...page.querySelectorAll("#grid > li")].filter((item) => !item.id || !document.getElementById(item.id)));
        const following = page.getElementById("next-page");
        if (following) next.href = following.href; else next.remove();
        const text = page.querySelector(".pager span");
        const current = pager.querySelector("span");
        if (text && current) current.textContent = text.textContent;
      } catch {
        observer.disconnect();  // the link still works by hand
      } finally {
        loading = false;
        pager.classList.remove("loading");
      }
    }, { rootMargin: "800px 0px" });
    observer.observe(pager);
  }

  // The duplicate threshold shows its value while dragging and applies when released.
  function setUpThreshold() {
    const slider = document.getElementById("threshold");
    const output = document.getElementById("threshold-value");
    if (!slider || !output) return;
    slider.addEventListener("input", () => { output.textContent = Number(slider.value).toFixed(2); });
    slider.addEventListener("change", () => slider.form.requestSubmit());
  }

  function start() {
    setUpSuggestions();
    setUpColor();
    setUpInfiniteScroll();
    setUpThreshold();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
