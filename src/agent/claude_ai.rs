//! claude.ai uploads and Anthropic's Skills API: what they refuse in an uploaded skill
//! (`docs/research/spec-and-refs.md` §3.7).

use crate::skill::FileName;

/// The upload limit, uncompressed.
pub(crate) const MAX_UPLOAD_BYTES: u64 = 30 * 1024 * 1024;

/// Why claude.ai would refuse an upload of these files (paths inside the skill, `/`-separated)
/// totalling `total` bytes unpacked, with `max` as its limit; `None` when it would take it.
pub(crate) fn upload_refusal<'a>(
    paths: impl IntoIterator<Item = &'a str>,
    total: u64,
    max: u64,
) -> Option<String> {
    if total > max {
        return Some(format!(
            "the skill is {total} bytes unpacked; claude.ai accepts at most {max}"
        ));
    }
    let mut nested = Vec::new();
    let mut manifest = false;
    for path in paths {
        if path.contains('/')
            && FileName::classify(std::ffi::OsStr::new(
                path.rsplit('/').next().unwrap_or_default(),
            ))
            .is_some()
        {
            nested.push(path);
        }
        manifest |= path == ".claude-plugin/plugin.json";
    }
    if !nested.is_empty() {
        return Some(format!(
            "the archive would hold more than one SKILL.md ({}); claude.ai requires exactly one",
            nested.join(", ")
        ));
    }
    if manifest {
        return Some("the skill holds `.claude-plugin/plugin.json`; claude.ai refuses plugin manifests in a skill".into());
    }
    None
}
