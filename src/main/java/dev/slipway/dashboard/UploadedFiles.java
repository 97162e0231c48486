package dev.slipway.dashboard;

import dev.slipway.accounts.Account;
import dev.slipway.api.ApiException;
import dev.slipway.source.Upload;
import dev.slipway.source.UploadIntake;
import jakarta.servlet.http.Part;

import java.io.InputStream;
import java.util.List;

/** The zip or the folder of the new-project form, stored as the account's upload. */
final class UploadedFiles {
    private UploadedFiles() {}

    /**
     * @param zip    the zip input's parts
     * @param folder the folder input's parts; an input left empty sends one part without a file name
     */
    static Upload store(UploadIntake intake, Account account, List<Part> zip, List<Part> folder) {
        List<Part> zips = chosen(zip);
        List<Part> files = chosen(folder);
        if (zips.isEmpty() && files.isEmpty()) throw ApiException.invalid("Choose a .zip file or a folder to upload", null);
        if (!zips.isEmpty() && !files.isEmpty()) throw ApiException.invalid("Choose a .zip file or a folder, not both", null);
        if (zips.size() > 1) throw ApiException.invalid("Choose one .zip file", null);
        if (zips.isEmpty()) return intake.receive(account, -1, FolderZip.of(files)::writeTo);
        Part part = zips.getFirst();
        if (part.getSize() == 0) throw ApiException.invalid("The zip file " + part.getSubmittedFileName() + " is empty", null);
        return intake.receive(account, part.getSize(), out -> {
            try (InputStream in = part.getInputStream()) {
                in.transferTo(out);
            }
        });
    }

    private static List<Part> chosen(List<Part> parts) {
        return parts.stream().filter(p -> p.getSubmittedFileName() != null && !p.getSubmittedFileName().isEmpty()).toList();
    }
}
