"""In-memory ar and tar.gz archives for the container tests (.crg, .cbl)."""
import io
import tarfile


def ar_archive(members):
    data = b"!<arch>\n"
    for name, payload in members:
        data += b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name.encode(), 0, 0, 0, b"100644",
                                                     len(payload))
        data += payload + (b"\n" if len(payload) % 2 else b"")
    return data


def tar_gz(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, payload in members:
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))
    return buffer.getvalue()
