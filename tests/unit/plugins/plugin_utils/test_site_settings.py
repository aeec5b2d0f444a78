

def test_internal_names_are_exactly_what_the_playbooks_set_that_is_no_setting():
    """INTERNAL lists the site_* names the site's playbooks and roles set themselves (vars, register): none more (a
    stale name would hide a user's typo), none fewer (the typo check would refuse the playbook's own)."""
    import pathlib
    import re

    from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_settings import INTERNAL, SETTINGS

    root = pathlib.Path(__file__).resolve().parents[4]
    defined = set()
    for path in [*(root / "playbooks").rglob("*.yml"), *(root / "roles").rglob("*.yml")]:
        text = path.read_text(encoding="utf-8")
        defined |= set(re.findall(r"^\s*(site_[a-z_]+):", text, re.MULTILINE))
        defined |= set(re.findall(r"register: (site_[a-z_]+)", text))
    assert defined - {s.name for s in SETTINGS} == INTERNAL
