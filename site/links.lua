-- links.lua — the site's link rewriting (site/build.sh runs pandoc with it, from the repository root).
-- A page is the Markdown file at the same path with .html; any other file of the course is a page of
-- its own at PATH.html (its text, highlighted). Inline code that names a file of the course, e.g.
-- `ring.c` in lesson 04 or `common/rng.h`, becomes such a link too. Every file linked is appended to
-- $SITE_LINKED so that build.sh renders it; a link to a plot under out/ (or `out/NAME.png` in inline
-- code) goes to its figure on plots.html.
local src = PANDOC_STATE.input_files[1] or ""
local srcdir = src:match("^(.*)/[^/]*$") or ""
local root = os.getenv("SITE_ROOT_REL") or ""
local linked = os.getenv("SITE_LINKED")

local function normalize(path)
    local out = {}
    for part in path:gmatch("[^/]+") do
        if part == ".." then
            if #out == 0 then return nil end
            table.remove(out)
        elseif part ~= "." then
            table.insert(out, part)
        end
    end
    return table.concat(out, "/")
end

local function exists(path)
    local f = io.open(path, "r")
    if not f then return false end
    local ok = f:read(0) -- nil for a directory
    f:close()
    return ok ~= nil
end

local function record(path)
    if not linked then return end
    local f = io.open(linked, "a")
    f:write(path, "\n")
    f:close()
end

-- A plot's figure on plots.html: the id site/build.sh's plot_id gives out/PATH.png
local function plot_anchor(path)
    return "#plot-" .. path:gsub("[^%w-]", "-")
end

-- The site path of a course file (relative to the site root), or nil when it is not one.
local function site_path(path)
    if path:match("^out/.*%.png$") then return "plots.html" .. plot_anchor(path) end
    if path:match("^out/") then return "plots.html" end
    if not exists(path) and exists(path .. "/README.md") then path = path .. "/README.md" end
    if not exists(path) then return nil end
    record(path)
    if path:match("%.md$") then return (path:gsub("%.md$", ".html")) end
    return path .. ".html"
end

local function resolve(target)
    if target:match("^%a[%w+.-]*:") or target:match("^#") or target:match("^/") then return nil end
    local path, anchor = target:match("^([^#]*)(#?.*)$")
    local full = normalize((srcdir ~= "" and srcdir .. "/" or "") .. path)
    if not full or full == "" then return nil end
    local p = site_path(full:gsub("/$", ""))
    if not p then return nil end
    if p:match("^plots%.html") then anchor = "" end
    return root .. p .. anchor
end

local function Link(el)
    local t = resolve(el.target)
    if t then el.target = t end
    -- code inside a link is not linked again
    el.content = pandoc.walk_inline(pandoc.Span(el.content), {
        Code = function(c)
            c.classes:insert("nolink")
            return c
        end,
    }).content
    return el
end

local function Image(el)
    local path = el.src:match("^([^#?]*)")
    if el.src:match("^%a[%w+.-]*:") or el.src:match("^/") then return nil end
    local full = normalize((srcdir ~= "" and srcdir .. "/" or "") .. path)
    if full and exists(full) then record("copy:" .. full) end
    return nil
end

-- `name.c` relative to the page's folder, else to the repository root
local function Code(el)
    if el.classes:includes("nolink") then return nil end
    local s = el.text
    if not s:match("^[%w_./-]+%.[%a]+$") then return nil end
    -- a plot the text names (`out/scaling/scaling.png`) links to its figure, except on the plots page
    if s:match("^out/.*%.png$") and src ~= "plots.md" then return pandoc.Link({el}, root .. site_path(s)) end
    if not (s:match("%.[ch]$") or s:match("%.cu$") or s:match("%.sh$") or s:match("%.mk$") or s:match("%.py$")
            or s:match("%.md$")) then
        return nil
    end
    for _, base in ipairs({srcdir, ""}) do
        local full = normalize((base ~= "" and base .. "/" or "") .. s)
        if full and exists(full) then
            local p = site_path(full)
            if p then return pandoc.Link({el}, root .. p) end
        end
    end
    return nil
end

return {{Link = Link, Image = Image}, {Code = Code}}
