"""mkdocs hook: completes docs/rules_data.md when the site is built, below its marker, with the
key tables and provisional values of every registered game that declares rules keys
(core.rules_file.docs_text), so no game has to edit a file outside its package to appear."""

from __future__ import annotations


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != "rules_data.md":
        return markdown
    from core.rules_file import docs_text

    return docs_text(markdown)
